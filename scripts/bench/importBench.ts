/*
 * npm run bench:import — a source's complete set staged in parts and applied by the job on the queue, at
 * BENCH_SIZES identities (default 1,000,000; a quick check: BENCH_SIZES=20000 npm run bench:import):
 * startImport, addImportPart per part of 2,000 (BENCH_PART_CONCURRENCY at once, default 4), completeImport,
 * then importRun until the run ended. Per step (first import, unchanged re-import, 1% changed, 1% removed):
 * upload and job time, request units per identity, store operations, queue messages, and the service's heap
 * (this process serves the functions; the store runs in a process of its own, as Cosmos DB does on machines
 * of its own): its peak while parts come in, and while the job runs.
 * Association is measured on the first BENCH_ASSOCIATION_PAIRS identities (default 100,000), in requests of
 * 10,000 pairs. BENCH_RU_PER_SECOND=5000: the local engine serves each container 5,000 RU/s (a serverless
 * container) and answers 429 beyond.
 */
import v8 from 'node:v8';
import vm from 'node:vm';
import { printTable, startBenchStack, tokenFor, type Stack, runBench, postJsonNoTimeout } from './harness';
import { storeInProcess } from './storeProcess';
import { LOCAL_COSMOS_KEY } from '../../devhost/cosmosServer';
import { bulkBudgetsFor } from '../../devhost/bulkBudgets';
import { DEV_CLIENTS, DEV_TENANT_ID } from '../../devhost/devData';
import type { ImportIdentityInput } from '../../lib/imports/importInput';
import { diffCounters, storeCounters, type StoreCounters } from '../../lib/store/metrics';
import { services } from '../../lib/services';

const SIZES = (process.env.BENCH_SIZES ?? '1000000').split(',').map(Number);
const RU_PER_SECOND = process.env.BENCH_RU_PER_SECOND ? Number(process.env.BENCH_RU_PER_SECOND) : undefined;
const PART_CONCURRENCY = Number(process.env.BENCH_PART_CONCURRENCY ?? 4);
const ASSOCIATION_PAIRS = Number(process.env.BENCH_ASSOCIATION_PAIRS ?? 100_000);
const ASSOCIATION_CHUNK = 10_000;
const PART_SIZE = 2_000;

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;
const MB = 1024 * 1024;

function cpr(i: number): string {
  const day = String((i % 28) + 1).padStart(2, '0');
  const month = String((Math.floor(i / 28) % 12) + 1).padStart(2, '0');
  return `${day}${month}85${String(i % 10000).padStart(4, '0')}`;
}

/** Identity i of the set; `changed` of them (every 100th) with another first name. */
function person(i: number, changed: boolean): ImportIdentityInput {
  return {
    externalId: `EMP-${i}`,
    affiliationType: i % 10 === 0 ? 'ENGAGEMENT' : 'EMPLOYMENT',
    firstName: changed && i % 100 === 0 ? `Changed${i}` : `First${i}`,
    lastName: `Last${i}`,
    birthDate: '1985-01-01',
    nationality: 'DK',
    personalNumbers: [{ type: 'DK_CPR', value: cpr(i) }],
  };
}

/** The heap of this process (the service's, the stack being in-process): its peak while `work` runs. */
async function peakHeap<T>(
  work: () => Promise<T>,
): Promise<{ value: T; baseMb: number; peakMb: number; rssMb: number }> {
  gc();
  const base = process.memoryUsage();
  let peak = base.heapUsed;
  let rss = base.rss;
  const timer = setInterval(() => {
    const m = process.memoryUsage();
    peak = Math.max(peak, m.heapUsed);
    rss = Math.max(rss, m.rss);
  }, 20);
  try {
    const value = await work();
    return { value, baseMb: base.heapUsed / MB, peakMb: peak / MB, rssMb: rss / MB };
  } finally {
    clearInterval(timer);
  }
}

interface Gql {
  data?: Record<string, Record<string, unknown> | null>;
  errors?: Array<{ message: string; extensions?: { code?: string; retryAfterSeconds?: number } }>;
}

async function graphql(
  stack: Stack & { base: string },
  token: string,
  query: string,
  variables: unknown,
): Promise<Gql> {
  for (;;) {
    const body = (await postJsonNoTimeout(`${stack.base}/graphql`, token, { query, variables })).json as Gql;
    const busy = body.errors?.find((e) => e.extensions?.code === 'SERVICE_BUSY');
    if (busy) {
      await new Promise((r) => setTimeout(r, (busy.extensions?.retryAfterSeconds ?? 1) * 1000));
      continue;
    }
    if (body.errors) throw new Error(JSON.stringify(body.errors).slice(0, 300));
    return body;
  }
}

const START = 'mutation($i: StartImportInput!) { startImport(input: $i) { importId maxIdentitiesPerPart } }';
const ADD = 'mutation($i: AddImportPartInput!) { addImportPart(input: $i) { identitiesReceived } }';
const COMPLETE = 'mutation($i: CompleteImportInput!) { completeImport(input: $i) { runId status } }';
const RUN =
  'query($id: ID!) { importRun(id: $id) { status importCounts { created updated deleted unchanged } progress { applied total } failure { code message } } }';
const ASSOCIATE =
  'mutation($i: AssociateBusinessIdentitiesInput!) { associateBusinessIdentities(input: $i) { associated unchanged } }';

const rowOps = (ops: StoreCounters) => ({
  'identity writes': ops.identityWrites,
  'store writes': ops.writes,
  'point reads': ops.pointReads,
  'query pages': ops.queryPages,
  'batch requests': ops.batchRequests,
});

async function main(): Promise<void> {
  const rows: Array<Record<string, string | number>> = [];
  const memoryRows: Array<Record<string, string | number>> = [];
  const associationRows: Array<Record<string, string | number>> = [];
  const store = await storeInProcess(RU_PER_SECOND);
  for (const n of SIZES) {
    // Set for each stack: a stack that stops removes the settings it used.
    process.env.COSMOS_ENDPOINT = store.endpoint;
    process.env.COSMOS_KEY = LOCAL_COSMOS_KEY;
    const stack = await startBenchStack({
      BULK_ITEMS_PER_MINUTE: '50000000',
      // Bulk work paced as the local stack paces it for an engine of this many RU/s (none: not held back).
      ...bulkBudgetsFor(RU_PER_SECOND),
      GRAPHQL_REQUESTS_PER_MINUTE: '1000000',
      IMPORT_MAX_IDENTITIES: String(n),
      // BENCH_FIELD_ENCRYPTION=off: the same without field encryption (numbers stored as sent), for comparison.
      ...(process.env.BENCH_FIELD_ENCRYPTION === 'off' ? { KEY_VAULT_URL: '' } : {}),
    });
    try {
      const token = await tokenFor(stack, DEV_CLIENTS.admin);
      const source = `Bench${n}`;
      /** Stages the identities `ids` (generated part by part) and follows the run to its end. */
      const stagedImport = async (label: string, count: number, identityAt: (k: number) => ImportIdentityInput) => {
        const before = storeCounters();
        const ruBefore = await store.usage();
        const sentBefore = services().workQueue.sent;
        const started = performance.now();
        const upload = await peakHeap(async () => {
          const { importId } = (await graphql(stack, token, START, { i: { source } })).data!.startImport as {
            importId: string;
          };
          const parts = Math.ceil(count / PART_SIZE);
          const partMs: number[] = [];
          let next = 0;
          await Promise.all(
            Array.from({ length: Math.min(PART_CONCURRENCY, parts) }, async () => {
              while (next < parts) {
                const p = next++;
                const identities = Array.from({ length: Math.min(PART_SIZE, count - p * PART_SIZE) }, (_, j) =>
                  identityAt(p * PART_SIZE + j),
                );
                const t = performance.now();
                await graphql(stack, token, ADD, { i: { importId, sequence: p + 1, identities } });
                partMs.push(performance.now() - t);
              }
            }),
          );
          partMs.sort((a, b) => a - b);
          return {
            importId,
            parts,
            p50: partMs[Math.floor(partMs.length / 2)] ?? 0,
            p95: partMs[Math.floor(partMs.length * 0.95)] ?? 0,
          };
        });
        const uploadMs = performance.now() - started;
        const uploadOps = diffCounters(storeCounters(), before);
        const uploadRu = (await store.usage()).charged - ruBefore.charged;
        const jobBefore = storeCounters();
        const jobStarted = performance.now();
        const job = await peakHeap(async () => {
          const { runId } = (await graphql(stack, token, COMPLETE, { i: { importId: upload.value.importId } })).data!
            .completeImport as { runId: string };
          for (;;) {
            const run = (await graphql(stack, token, RUN, { id: runId })).data!.importRun as {
              status: string;
              importCounts: Record<string, number> | null;
              failure: { code: string } | null;
            };
            if (!['QUEUED', 'RUNNING'].includes(run.status)) return run;
            await new Promise((r) => setTimeout(r, 250));
          }
        });
        const jobMs = performance.now() - jobStarted;
        const jobOps = diffCounters(storeCounters(), jobBefore);
        const ru = await store.usage();
        const jobRu = ru.charged - ruBefore.charged - uploadRu;
        const counts = job.value.importCounts ?? {};
        rows.push({
          N: n,
          step: label,
          status: job.value.status + (job.value.failure ? ` ${job.value.failure.code}` : ''),
          'upload s': (uploadMs / 1000).toFixed(1),
          'part p50/p95 ms': `${upload.value.p50.toFixed(0)}/${upload.value.p95.toFixed(0)}`,
          'job s': (jobMs / 1000).toFixed(1),
          created: counts.created ?? 0,
          updated: counts.updated ?? 0,
          deleted: counts.deleted ?? 0,
          unchanged: counts.unchanged ?? 0,
          'upload RU/identity': (uploadRu / count).toFixed(2),
          'job RU/identity': (jobRu / count).toFixed(3),
          'queue messages': services().workQueue.sent - sentBefore,
          '429s': ru.throttled - ruBefore.throttled,
          ...rowOps(jobOps),
          'upload store writes': uploadOps.writes,
        });
        memoryRows.push({
          N: n,
          step: label,
          parts: upload.value.parts,
          'heap at start MB': upload.baseMb.toFixed(0),
          'peak heap during upload MB': upload.peakMb.toFixed(0),
          'peak heap during job MB': job.peakMb.toFixed(0),
          'job peak above start MB': (job.peakMb - job.baseMb).toFixed(0),
          'peak RSS MB': Math.max(upload.rssMb, job.rssMb).toFixed(0),
        });
        console.error(`N=${n} ${label}: ${job.value.status} in ${((uploadMs + jobMs) / 1000).toFixed(1)} s`);
      };
      await stagedImport('first import', n, (k) => person(k, false));
      await stagedImport('unchanged re-import', n, (k) => person(k, false));
      await stagedImport('1% changed re-import', n, (k) => person(k, true));
      await stagedImport('1% removed re-import', n - Math.floor(n / 100), (k) => person(k, true));

      // Association under a request-unit budget is not the point of such a run.
      if (RU_PER_SECOND !== undefined) continue;
      const pairs = Math.min(n, ASSOCIATION_PAIRS);
      for (let i = 0; i < pairs; i++) stack.directory.createUser(DEV_TENANT_ID, `emp${i}@dev.example.com`);
      const associate = async (label: string) => {
        const before = storeCounters();
        const ruBefore = (await store.usage()).charged;
        const started = performance.now();
        const totals = { associated: 0, unchanged: 0 };
        for (let i = 0; i < pairs; i += ASSOCIATION_CHUNK) {
          const associations = Array.from({ length: Math.min(ASSOCIATION_CHUNK, pairs - i) }, (_, j) => ({
            externalId: `EMP-${i + j}`,
            userPrincipalName: `emp${i + j}@dev.example.com`,
          }));
          const counts = (await graphql(stack, token, ASSOCIATE, { i: { source, associations } })).data!
            .associateBusinessIdentities as Record<string, number>;
          totals.associated += counts.associated ?? 0;
          totals.unchanged += counts.unchanged ?? 0;
        }
        const ops = diffCounters(storeCounters(), before);
        const ru = (await store.usage()).charged - ruBefore;
        associationRows.push({
          pairs,
          step: `${label} (${Math.ceil(pairs / ASSOCIATION_CHUNK)} requests)`,
          s: ((performance.now() - started) / 1000).toFixed(1),
          associated: totals.associated,
          unchanged: totals.unchanged,
          'RU per pair': (ru / pairs).toFixed(2),
          ...rowOps(ops),
        });
      };
      await associate('associate all');
      await associate('associate again');
    } finally {
      await stack.stop();
    }
  }
  await store.stop();
  console.log(
    `Staged imports: parts of ${PART_SIZE}, ${PART_CONCURRENCY} at once; the job on the queue (store operations and request units of the job; upload RU separately)`,
  );
  printTable(rows);
  console.log(
    '\nThe service heap (the functions run in this process, the store in another): at the start, peak while parts came in, peak while the job ran',
  );
  printTable(memoryRows);
  if (associationRows.length > 0) {
    console.log(`\nAssociation in requests of ${ASSOCIATION_CHUNK} pairs`);
    printTable(associationRows);
  }
  console.log(
    "\nFull size: npm run bench:import (1,000,000 identities; BENCH_RU_PER_SECOND=5000 for a serverless container's pace)",
  );
}

runBench('import', main);
