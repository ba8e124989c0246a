/*
 * npm run bench:job — what one staged import's job holds, step by step: a source's set of N identities
 * (BENCH_SIZES, default 20000,100000) staged in parts of 2,000, then applied by its job on the queue (first
 * import, then a re-import with 1 % changed and 1 % removed); the service's heap and RSS (this process serves
 * the functions; the store runs in a process of its own) sampled every 20 ms, their peak per step of the job
 * (a step ends when it hands the next to the queue). BENCH_STEP_KEYS (default 20,000) is the job's
 * IMPORT_STEP_MAX_KEYS, small so that sizes that fit this machine take several hash ranges, as 1,000,000 does
 * at the default 200,000: the peak growth should not follow N. Also the request units the job cost per identity.
 */
import v8 from 'node:v8';
import vm from 'node:vm';
import { printTable, startBenchStack, tokenFor, runBench, graphqlRetryingBusy as graphql } from './harness';
import { storeInProcess } from './storeProcess';
import { LOCAL_COSMOS_KEY } from '../../devhost/cosmosServer';
import { DEV_CLIENTS } from '../../devhost/devData';
import type { ImportIdentityInput } from '../../lib/imports/importInput';
import { services } from '../../lib/services';

const SIZES = (process.env.BENCH_SIZES ?? '20000,100000').split(',').map(Number);
const STEP_KEYS = process.env.BENCH_STEP_KEYS ?? '20000';
const PART_SIZE = 2_000;
const MB = 1024 * 1024;

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

function person(i: number, changed: boolean): ImportIdentityInput {
  return {
    externalId: `EMP-${i}`,
    affiliationType: 'EMPLOYMENT',
    firstName: changed && i % 100 === 0 ? `Changed${i}` : `First${i}`,
    lastName: `Last${i}`,
    birthDate: '1985-01-01',
    nationality: 'DK',
    personalNumbers: [
      { type: 'DK_CPR', value: `${String((i % 28) + 1).padStart(2, '0')}0185${String(i % 10000).padStart(4, '0')}` },
    ],
  };
}

const START = 'mutation($i: StartImportInput!) { startImport(input: $i) { importId } }';
const ADD = 'mutation($i: AddImportPartInput!) { addImportPart(input: $i) { identitiesReceived } }';
const COMPLETE = 'mutation($i: CompleteImportInput!) { completeImport(input: $i) { runId } }';
const RUN = 'query($id: ID!) { importRun(id: $id) { status importCounts { created updated deleted unchanged } } }';

/** Samples the heap and RSS while `work` runs; the peaks per queue message sent (one per step of the job). */
async function perStep<T>(work: () => Promise<T>) {
  gc();
  const base = process.memoryUsage();
  const steps: Array<{ heap: number; rss: number }> = [];
  let sent = services().workQueue.sent;
  let current = { heap: base.heapUsed, rss: base.rss };
  const timer = setInterval(() => {
    const m = process.memoryUsage();
    current.heap = Math.max(current.heap, m.heapUsed);
    current.rss = Math.max(current.rss, m.rss);
    if (services().workQueue.sent !== sent) {
      sent = services().workQueue.sent;
      steps.push(current);
      current = { heap: m.heapUsed, rss: m.rss };
    }
  }, 20);
  try {
    const value = await work();
    steps.push(current);
    return { value, base, steps };
  } finally {
    clearInterval(timer);
  }
}

async function main(): Promise<void> {
  const rows: Array<Record<string, string | number>> = [];
  const store = await storeInProcess(undefined);
  for (const n of SIZES) {
    process.env.COSMOS_ENDPOINT = store.endpoint;
    process.env.COSMOS_KEY = LOCAL_COSMOS_KEY;
    const stack = await startBenchStack({
      BULK_ITEMS_PER_MINUTE: '50000000',
      GRAPHQL_REQUESTS_PER_MINUTE: '1000000',
      IMPORT_MAX_IDENTITIES: String(n),
      IMPORT_STEP_MAX_KEYS: STEP_KEYS,
    });
    try {
      const token = await tokenFor(stack, DEV_CLIENTS.admin);
      const source = `JobMemory${n}`;
      const run = async (label: string, count: number, changed: boolean) => {
        const { importId } = (await graphql(stack, token, START, { i: { source } })).data!.startImport as {
          importId: string;
        };
        for (let p = 0; p * PART_SIZE < count; p++) {
          const identities = Array.from({ length: Math.min(PART_SIZE, count - p * PART_SIZE) }, (_, j) =>
            person(p * PART_SIZE + j, changed),
          );
          await graphql(stack, token, ADD, { i: { importId, sequence: p + 1, identities } });
        }
        const ruBefore = (await store.usage()).charged;
        const started = performance.now();
        const job = await perStep(async () => {
          const { runId } = (await graphql(stack, token, COMPLETE, { i: { importId } })).data!.completeImport as {
            runId: string;
          };
          for (;;) {
            const r = (await graphql(stack, token, RUN, { id: runId })).data!.importRun as {
              status: string;
              importCounts: Record<string, number> | null;
            };
            if (!['QUEUED', 'RUNNING'].includes(r.status)) return r;
            await new Promise((resolve) => setTimeout(resolve, 100));
          }
        });
        const jobRu = (await store.usage()).charged - ruBefore;
        const heapPeaks = job.steps.map((s) => (s.heap - job.base.heapUsed) / MB);
        const rssPeaks = job.steps.map((s) => (s.rss - job.base.rss) / MB);
        rows.push({
          N: n,
          run: label,
          status: job.value.status,
          'job s': ((performance.now() - started) / 1000).toFixed(1),
          steps: job.steps.length,
          'job RU/identity': (jobRu / count).toFixed(3),
          'heap at start MB': (job.base.heapUsed / MB).toFixed(0),
          'peak heap growth MB': Math.max(...heapPeaks).toFixed(0),
          'heap growth per step MB': heapPeaks.map((x) => x.toFixed(0)).join(' '),
          'RSS at start MB': (job.base.rss / MB).toFixed(0),
          'peak RSS growth MB': Math.max(...rssPeaks).toFixed(0),
        });
        console.error(`N=${n} ${label}: ${job.value.status}`);
      };
      await run('first import', n, false);
      await run('1% changed, 1% removed', n - Math.floor(n / 100), true);
    } finally {
      await stack.stop();
    }
  }
  await store.stop();
  console.log(
    `Staged imports in parts of ${PART_SIZE}; IMPORT_STEP_MAX_KEYS=${STEP_KEYS}; heap and RSS of the service process`,
  );
  printTable(rows);
}

runBench('job', main);
