/*
 * npm run bench:import — a source's complete set staged in parts and applied by the job on the queue, at
 * BENCH_SIZES identities (default 1,000,000; a quick check: BENCH_SIZES=20000 npm run bench:import):
 * startImport, addImportPart per part of 2,000 (BENCH_PART_CONCURRENCY at once, default 4), completeImport,
 * then importRun until the run ended. Per step (first import, unchanged re-import, 1% changed, 1% removed):
 * upload and job time, request units per identity, store operations, queue messages; then what a changed
 * identity costs in request units (the 1%-changed job's charges less the unchanged job's per-identity reading
 * cost, over the identities changed).
 * Memory, per step: the service's peak heap and peak RSS while parts come in and while the job runs (the
 * functions run in this process, so it reports its own; the store runs in a process of its own, as Cosmos DB
 * does on machines of its own) and the store engine's heap after the step (per 100,000 identities after the
 * first import). The benchmark stops at once, with the reason, if the engine's process dies.
 * Association is measured on the first BENCH_ASSOCIATION_PAIRS identities (default 100,000), in requests of
 * 10,000 pairs. BENCH_RU_PER_SECOND=5000: the local engine serves each container 5,000 RU/s (a serverless
 * container) and answers 429 beyond. BENCH_IMPORT_TENANTS=3: instead of the steps, that many tenants' first
 * imports of the size at once on this one instance, with the service's peak RSS (goal at 1,000,000 each: 1.5 GB;
 * a mode of its own so that this process's peak is theirs alone; like any run it rewrites bench-import.md).
 */
import v8 from 'node:v8';
import vm from 'node:vm';
import { printTable, startBenchStack, tokenFor, type Stack, runBench, graphqlRetryingBusy as graphql } from './harness';
import { storeHeapMb, storeInProcess, type StoreProcess } from './storeProcess';
import { MB, peakRssBytes } from './processMemory';
import { changedIdentityCost, type StepCharge } from './importFigures';
import { LOCAL_COSMOS_KEY } from '../../devhost/cosmosServer';
import { bulkBudgetsFor } from '../../devhost/bulkBudgets';
import { DEV_CLIENTS, DEV_TENANT_ID, type DevClient } from '../../devhost/devData';
import type { ImportIdentityInput } from '../../lib/imports/importInput';
import { diffCounters, storeCounters, type StoreCounters } from '../../lib/store/metrics';
import { services } from '../../lib/services';

const SIZES = (process.env.BENCH_SIZES ?? '1000000').split(',').map(Number);
const RU_PER_SECOND = process.env.BENCH_RU_PER_SECOND ? Number(process.env.BENCH_RU_PER_SECOND) : undefined;
const PART_CONCURRENCY = Number(process.env.BENCH_PART_CONCURRENCY ?? 4);
const ASSOCIATION_PAIRS = Number(process.env.BENCH_ASSOCIATION_PAIRS ?? 100_000);
const ASSOCIATION_CHUNK = 10_000;
const PART_SIZE = 2_000;
/** Tenants whose first imports run at once on one instance, in place of the steps (0: the steps). */
const CONCURRENT_TENANTS = Number(process.env.BENCH_IMPORT_TENANTS ?? 0);

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

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

interface PeakMemory<T> {
  value: T;
  /** Heap at the start (after a full collection), peak heap and peak RSS while `work` ran, in MB. */
  baseMb: number;
  peakMb: number;
  rssMb: number;
}

/** The memory of this process (the service's, the stack being in-process): its peak while `work` runs. */
async function peakMemory<T>(work: () => Promise<T>): Promise<PeakMemory<T>> {
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

/** A tenant of the concurrent-jobs run: an admin client in a tenant of its own. */
function extraTenant(k: number): DevClient {
  const hex = String(k + 3).repeat(8);
  return {
    name: `bench-tenant-${k}`,
    tenantId: `${hex}-${hex.slice(0, 4)}-4${hex.slice(0, 3)}-8${hex.slice(0, 3)}-${hex}${hex.slice(0, 4)}`,
    clientId: `bbbbbbbb-0000-4000-8000-${String(k).padStart(12, '0')}`,
    secret: `bench-tenant-${k}-secret`,
    roles: ['Admin'],
  };
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

type BenchStack = Stack & { base: string };

/** Starts a staged import of `source` and adds its `count` identities in parts; the import's id and part times. */
async function uploadParts(
  stack: BenchStack,
  token: string,
  source: string,
  count: number,
  identityAt: (k: number) => ImportIdentityInput,
): Promise<{ importId: string; parts: number; p50: number; p95: number }> {
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
}

interface RunOutcome {
  status: string;
  importCounts: Record<string, number> | null;
  failure: { code: string } | null;
}

/** Completes the import and follows its run to its end. */
async function completeAndFollow(stack: BenchStack, token: string, importId: string): Promise<RunOutcome> {
  const { runId } = (await graphql(stack, token, COMPLETE, { i: { importId } })).data!.completeImport as {
    runId: string;
  };
  for (;;) {
    const run = (await graphql(stack, token, RUN, { id: runId })).data!.importRun as unknown as RunOutcome;
    if (!['QUEUED', 'RUNNING'].includes(run.status)) return run;
    await new Promise((r) => setTimeout(r, 250));
  }
}

const statusOf = (run: RunOutcome) => run.status + (run.failure ? ` ${run.failure.code}` : '');

async function main(): Promise<void> {
  const rows: Array<Record<string, string | number>> = [];
  const memoryRows: Array<Record<string, string | number>> = [];
  const associationRows: Array<Record<string, string | number>> = [];
  const costLines: string[] = [];
  const engineLines: string[] = [];
  const concurrentRows: Array<Record<string, string | number>> = [];
  const contentRows: Array<Record<string, string | number>> = [];
  // The engine keeps every size's sources: it holds their sum.
  const identities = SIZES.reduce((a, b) => a + b, 0) * Math.max(1, CONCURRENT_TENANTS);
  const store = await storeInProcess(RU_PER_SECOND, 'serverless', storeHeapMb(identities));
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
      gc();
      const idleRssMb = process.memoryUsage().rss / MB;
      const engineAtStart = await store.memory();
      if (CONCURRENT_TENANTS > 0) {
        // This process's peak RSS is then the concurrent jobs' alone (a process's RSS seldom shrinks).
        concurrentRows.push(await concurrentImports(stack, store, n, idleRssMb));
        continue;
      }
      const charges = new Map<string, StepCharge>();
      /** Stages the identities `ids` (generated part by part) and follows the run to its end. */
      const stagedImport = async (label: string, count: number, identityAt: (k: number) => ImportIdentityInput) => {
        const before = storeCounters();
        const ruBefore = await store.usage();
        const sentBefore = services().workQueue.sent;
        const started = performance.now();
        const upload = await peakMemory(() => uploadParts(stack, token, source, count, identityAt));
        const uploadMs = performance.now() - started;
        const uploadOps = diffCounters(storeCounters(), before);
        const uploadRu = (await store.usage()).charged - ruBefore.charged;
        const jobBefore = storeCounters();
        const jobStarted = performance.now();
        const job = await peakMemory(() => completeAndFollow(stack, token, upload.value.importId));
        const jobMs = performance.now() - jobStarted;
        const jobOps = diffCounters(storeCounters(), jobBefore);
        const ru = await store.usage();
        const jobRu = ru.charged - ruBefore.charged - uploadRu;
        const counts = job.value.importCounts ?? {};
        charges.set(label, { jobRu, identities: count, updated: counts.updated ?? 0 });
        rows.push({
          N: n,
          step: label,
          status: statusOf(job.value),
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
        const engine = await store.memory();
        const peakRss = Math.max(upload.rssMb, job.rssMb);
        memoryRows.push({
          N: n,
          step: label,
          parts: upload.value.parts,
          'heap at start MB': upload.baseMb.toFixed(0),
          'peak heap upload MB': upload.peakMb.toFixed(0),
          'peak heap job MB': job.peakMb.toFixed(0),
          'peak RSS upload MB': upload.rssMb.toFixed(0),
          'peak RSS job MB': job.rssMb.toFixed(0),
          'peak RSS above idle MB': (peakRss - idleRssMb).toFixed(0),
          'store heap after MB': engine.heapUsedMb,
          'store RSS after MB': engine.rssMb,
        });
        if (label === 'first import') {
          const perHundredThousand = ((engine.heapUsedMb - engineAtStart.heapUsedMb) / n) * 100_000;
          engineLines.push(
            `The store's engine after the first import of ${n} identities: ${engine.heapUsedMb} MB of heap ` +
              `(${engineAtStart.heapUsedMb} MB before it), ${perHundredThousand.toFixed(0)} MB per 100,000 identities ` +
              '(heap after a full collection: documents with their history, the staged parts still stored, indexes).',
          );
        }
        // Each step's figures as soon as it ends: a long run shows where it is, and a stopped one what it did.
        console.error(
          `N=${n} ${label}: ${statusOf(job.value)}; upload ${(uploadMs / 1000).toFixed(1)} s, job ` +
            `${(jobMs / 1000).toFixed(1)} s, job ${(jobRu / count).toFixed(3)} RU/identity, peak heap ` +
            `${Math.max(upload.peakMb, job.peakMb).toFixed(0)} MB, peak RSS ${(peakRss - idleRssMb).toFixed(0)} MB above idle; ` +
            `store heap ${engine.heapUsedMb} MB`,
        );
      };
      await stagedImport('first import', n, (k) => person(k, false));
      await stagedImport('unchanged re-import', n, (k) => person(k, false));
      await stagedImport('1% changed re-import', n, (k) => person(k, true));
      await stagedImport('1% removed re-import', n - Math.floor(n / 100), (k) => person(k, true));
      const cost = changedIdentityCost(charges.get('unchanged re-import'), charges.get('1% changed re-import'));
      if (cost)
        costLines.push(`N=${n}: a changed identity costs ${cost.perChanged.toFixed(1)} RU (goal ≤ 14)`, cost.how);

      // Association under a request-unit budget is not the point of such a run.
      if (RU_PER_SECOND === undefined) {
        const pairs = Math.min(n, ASSOCIATION_PAIRS);
        for (let i = 0; i < pairs; i++) stack.directory.createUser(DEV_TENANT_ID, `emp${i}@dev.example.com`);
        const associate = async (label: string) => {
          const before = storeCounters();
          const ruBefore = (await store.usage()).charged;
          const started = performance.now();
          const totals = { associated: 0, unchanged: 0 };
          const run = await peakMemory(async () => {
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
          });
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
          const engine = await store.memory();
          memoryRows.push({
            N: n,
            step: `${label} (${pairs} pairs)`,
            parts: '-',
            'heap at start MB': run.baseMb.toFixed(0),
            'peak heap upload MB': '-',
            'peak heap job MB': run.peakMb.toFixed(0),
            'peak RSS upload MB': '-',
            'peak RSS job MB': run.rssMb.toFixed(0),
            'peak RSS above idle MB': (run.rssMb - idleRssMb).toFixed(0),
            'store heap after MB': engine.heapUsedMb,
            'store RSS after MB': engine.rssMb,
          });
        };
        await associate('associate all');
        await associate('associate again');
      }
      const engine = await store.memory();
      engineLines.push(
        `The store's engine at the end of N=${n}: ${engine.heapUsedMb} MB of heap, RSS ${engine.rssMb} MB, ` +
          `peak RSS ${engine.peakRssMb} MB.`,
      );
      for (const c of await store.contents())
        if (c.documents > 0)
          contentRows.push({
            N: n,
            container: c.container,
            documents: c.documents,
            'stored JSON MB': (c.jsonBytes / MB).toFixed(1),
            'JSON bytes/document': Math.round(c.jsonBytes / c.documents),
            partitions: c.partitions,
            'indexed paths': c.indexedPaths.join(' '),
          });
    } finally {
      await stack.stop();
    }
  }
  await store.stop();
  console.log(
    `Field encryption: ${process.env.BENCH_FIELD_ENCRYPTION === 'off' ? 'off (BENCH_FIELD_ENCRYPTION=off)' : 'on'}; every identity carries a CPR number\n`,
  );
  if (rows.length > 0) {
    console.log(
      `Staged imports: parts of ${PART_SIZE}, ${PART_CONCURRENCY} at once; the job on the queue (store operations and request units of the job; upload RU separately)`,
    );
    printTable(rows);
  }
  if (costLines.length > 0) console.log(`\n${costLines.join('\n')}`);
  if (memoryRows.length > 0)
    console.log(
      '\nMemory per step. The service (the functions run in this process, the store in another): heap at the start ' +
        '(after a full collection), peak heap and peak RSS while parts came in and while the job ran, peak RSS above ' +
        "the process's idle RSS before the first import. The store's engine: heap (after a full collection) and RSS after the step.",
    );
  printTable(memoryRows);
  const worstAboveIdle = Math.max(...memoryRows.map((r) => Number(r['peak RSS above idle MB'])));
  if (memoryRows.length > 0)
    console.log(
      `\nThe largest peak RSS above idle: ${worstAboveIdle} MB (goal at 1,000,000 identities: ≤ 256 MB, the service run ` +
        'as on a 2 GB instance, `--max-old-space-size=1536`)',
    );
  const servicePeak = peakRssBytes();
  if (servicePeak !== undefined)
    console.log(`\nThe service process's peak RSS over the whole run (VmHWM): ${(servicePeak / MB).toFixed(0)} MB`);
  if (engineLines.length > 0) console.log(`\n${engineLines.join('\n')}`);
  if (contentRows.length > 0) {
    console.log(
      "\nWhat the store's engine holds at the end (documents kept as their JSON text; indexes built on first use)",
    );
    printTable(contentRows);
  }
  if (associationRows.length > 0) {
    console.log(`\nAssociation in requests of ${ASSOCIATION_CHUNK} pairs`);
    printTable(associationRows);
  }
  if (concurrentRows.length > 0) {
    console.log(
      `\n${CONCURRENT_TENANTS} tenants' first imports at once on this one instance (goal at 1,000,000 each: peak RSS ≤ 1.5 GB)`,
    );
    printTable(concurrentRows);
  }
  console.log(
    "\nFull size: npm run bench:import (1,000,000 identities; BENCH_RU_PER_SECOND=5000 for a serverless container's pace; " +
      "BENCH_IMPORT_TENANTS=3 runs three tenants' first imports at once instead of the steps)",
  );
}

/** CONCURRENT_TENANTS tenants, each with an admin client of its own, stage and apply `n` identities at once. */
async function concurrentImports(
  stack: BenchStack,
  store: StoreProcess,
  n: number,
  idleRssMb: number,
): Promise<Record<string, string | number>> {
  const tenants = Array.from({ length: CONCURRENT_TENANTS }, (_, k) => extraTenant(k));
  const tokens: string[] = [];
  for (const tenant of tenants) {
    await services().tenants.register(tenant.tenantId);
    stack.idp.addClient(tenant);
    tokens.push(await tokenFor(stack, tenant));
  }
  const started = performance.now();
  const run = await peakMemory(() =>
    Promise.all(
      tenants.map(async (tenant, k) => {
        const token = tokens[k] ?? '';
        const upload = await uploadParts(stack, token, `Concurrent${n}`, n, (i) => person(i, false));
        return completeAndFollow(stack, token, upload.importId);
      }),
    ),
  );
  const engine = await store.memory();
  console.error(`N=${n} ${CONCURRENT_TENANTS} tenants at once: ${run.value.map(statusOf).join(', ')}`);
  return {
    'N per tenant': n,
    tenants: CONCURRENT_TENANTS,
    status: run.value.map(statusOf).join(', '),
    's (upload and job)': ((performance.now() - started) / 1000).toFixed(1),
    'service peak heap MB': run.peakMb.toFixed(0),
    'service peak RSS MB': run.rssMb.toFixed(0),
    'peak RSS above idle MB': (run.rssMb - idleRssMb).toFixed(0),
    'store heap after MB': engine.heapUsedMb,
  };
}

runBench('import', main);
