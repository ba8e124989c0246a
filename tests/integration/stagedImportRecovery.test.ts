/**
 * A staged import's job that stops part-way continues from where the store says it is, with no client
 * action: after a store failure in the middle of a step (the queue hands the message out again), and after
 * the process died in the middle of a step (its hold on the job left behind, its queue message lost with the
 * process) and a new one started on the same data (the resumer hands the job to the queue again).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestStack, call, type TestStack } from '../support/stack';
import { DEV_CLIENTS, DEV_TENANT_ID } from '../../devhost/devData';
import { importJobDeps, services } from '../../lib/services';
import { setFaultInjector } from '../../devhost/cosmos/faults';
import { StoreError } from '../../lib/store/errors';
import { resumeImportJobs } from '../../lib/imports/importJob';
import { customSourceKey } from '../../lib/imports/importer';
import { partitionKey } from '../../lib/identities/model';
import { RESUME_AFTER_MS, STEP_LEASE_MS } from '../../lib/imports/jobPlan';

type Gql<T> = { data?: T | null; errors?: Array<{ message: string; extensions?: Record<string, unknown> }> };
type Counts = { created: number; updated: number; deleted: number; unchanged: number };
type Run = { status: string; importCounts: Counts | null; progress: { applied: number; total: number } | null };

const START = 'mutation($i: StartImportInput!) { startImport(input: $i) { importId } }';
const ADD = 'mutation($i: AddImportPartInput!) { addImportPart(input: $i) { partsReceived } }';
const COMPLETE = 'mutation($i: CompleteImportInput!) { completeImport(input: $i) { runId status } }';
const RUN =
  'query($id: ID!) { importRun(id: $id) { status importCounts { created updated deleted unchanged } progress { applied total } } }';
const COUNT = '{ sources { name counts { total } } }';

const HOST_JSON = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'host.json'), 'utf8')) as {
  extensions: { queues: Record<string, unknown> };
};
/** A failed queue message is visible again after a second (30 s in Azure). */
const QUICK_RETRIES = {
  ...HOST_JSON,
  extensions: { ...HOST_JSON.extensions, queues: { ...HOST_JSON.extensions.queues, visibilityTimeout: '00:00:01' } },
};
/** Parts of 50, steps of at most 100 identity writes: a set of 600 takes several steps. */
const ENV = { IMPORT_PART_MAX_IDENTITIES: '50', IMPORT_STEP_MAX_WRITES: '100' };

const people = (prefix: string, n: number) =>
  Array.from({ length: n }, (_, i) => ({
    externalId: `${prefix}${i}`,
    affiliationType: 'EMPLOYMENT',
    firstName: `First${i}`,
    lastName: `Last${i}`,
  }));

function client(stack: () => TestStack) {
  let token: string | undefined;
  const gql = async <T>(query: string, variables: Record<string, unknown>) => {
    token ??= await stack().token(DEV_CLIENTS.admin);
    return call<Gql<T>>(`${stack().base}/graphql`, {
      method: 'POST',
      token,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables }),
    });
  };
  return {
    forget: () => void (token = undefined),
    gql,
    /** Stages the set in parts of 50 and completes it: the run id. */
    stage: async (source: string, identities: unknown[]) => {
      const importId = (await gql<{ startImport: { importId: string } }>(START, { i: { source } })).body.data!
        .startImport.importId;
      for (let i = 0; i < identities.length; i += 50)
        expect(
          (await gql(ADD, { i: { importId, sequence: i / 50 + 1, identities: identities.slice(i, i + 50) } })).body
            .errors,
        ).toBeUndefined();
      const done = (await gql<{ completeImport: { runId: string; status: string } }>(COMPLETE, { i: { importId } }))
        .body.data!.completeImport;
      expect(done.status).toBe('QUEUED');
      return done.runId;
    },
    run: async (id: string) => (await gql<{ importRun: Run | null }>(RUN, { id })).body.data!.importRun,
    total: async (source: string) =>
      (await gql<{ sources: Array<{ name: string; counts: { total: number } }> }>(COUNT, {})).body.data!.sources.find(
        (s) => s.name === source,
      )?.counts.total,
  };
}

async function until<T>(read: () => Promise<T>, done: (v: T) => boolean, timeoutMs = 60_000): Promise<T> {
  const stop = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (done(v)) return v;
    if (Date.now() > stop) throw new Error(`not reached in ${timeoutMs} ms: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('a staged import whose job stops part-way', () => {
  let stack: TestStack | undefined;
  const api = client(() => stack!);
  afterEach(async () => {
    setFaultInjector(undefined);
    api.forget();
    await stack?.stop();
    stack = undefined;
  });

  it('continues after a store failure in the middle of a step, and counts every identity once', async () => {
    stack = await startTestStack({ env: ENV, hostJson: QUICK_RETRIES });
    const identitiesPk = partitionKey(DEV_TENANT_ID, customSourceKey('Flaky'));
    let creates = 0;
    let failing = 0;
    // Once 250 identities were written, the next 30 identity writes fail: the step stops with some of its writes done.
    setFaultInjector((op, container, target) => {
      if (container !== 'identities' || target?.pk !== identitiesPk || op !== 'create') return;
      if (++creates > 250 && failing < 30) {
        failing++;
        throw new StoreError('unavailable', 'injected', 100);
      }
    });
    const runId = await api.stage('Flaky', people('F', 600));
    const seen: number[] = [];
    const r = await until(
      async () => {
        const x = await api.run(runId);
        if (x?.progress) seen.push(x.progress.applied);
        return x;
      },
      (x) => x?.status === 'COMPLETED' || x?.status === 'FAILED',
    );
    expect(failing).toBe(30);
    expect(r).toMatchObject({
      status: 'COMPLETED',
      importCounts: { created: 600, updated: 0, deleted: 0, unchanged: 0 },
      progress: { applied: 600, total: 600 },
    });
    // Progress was recorded step by step.
    expect(seen.some((applied) => applied > 0 && applied < 600)).toBe(true);
    expect(await api.total('Flaky')).toBe(600);
  }, 120_000);

  it('continues after its process died in the middle of a step: a new process on the same data resumes it, with no client', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'staged-recovery-'));
    try {
      stack = await startTestStack({ env: ENV, hostJson: QUICK_RETRIES, cosmosDataDir: dataDir });
      const pk = partitionKey(DEV_TENANT_ID, customSourceKey('Crashing'));
      let creates = 0;
      let dead = false;
      // After 250 identity writes the process "dies": from then on nothing it sends reaches the store (not even
      // the release of its hold on the job), and its queue message goes with it (the queue lives in the process).
      setFaultInjector((op, container, target) => {
        if (container === 'identities' && target?.pk === pk && op === 'create' && ++creates > 250) dead = true;
        if (dead && (container === 'identities' || container === 'imports'))
          throw new StoreError('unavailable', 'injected', 100);
      });
      const runId = await api.stage('Crashing', people('K', 600));
      await until(
        async () => dead,
        (d) => d,
      );
      // Let the failing step end, then stop the process.
      await new Promise((r) => setTimeout(r, 500));
      await stack.stop();
      stack = undefined;
      setFaultInjector(undefined);

      stack = await startTestStack({ env: ENV, hostJson: QUICK_RETRIES, cosmosDataDir: dataDir });
      api.forget();
      const stopped = await api.run(runId);
      expect(stopped?.status).toBe('RUNNING');
      expect(stopped?.progress?.applied).toBeLessThan(600);
      // Nothing resumes it before its step's hold lapses: the resumer, a minute later as a timer sees it.
      expect((await resumeImportJobs(importJobDeps(services()))).resumed).toBe(0);
      const later = Date.now() + STEP_LEASE_MS + RESUME_AFTER_MS + 1_000;
      expect(await resumeImportJobs(importJobDeps(services()), later)).toMatchObject({ resumed: 1 });
      const r = await until(
        () => api.run(runId),
        (x) => x?.status === 'COMPLETED' || x?.status === 'FAILED',
      );
      expect(r).toMatchObject({
        status: 'COMPLETED',
        importCounts: { created: 600, updated: 0, deleted: 0, unchanged: 0 },
        progress: { applied: 600, total: 600 },
      });
      expect(await api.total('Crashing')).toBe(600);
      // Ended: the resumer has nothing left to do, and the source is free.
      expect(await resumeImportJobs(importJobDeps(services()), later)).toMatchObject({ listed: 0 });
      const rerun = await api.stage('Crashing', people('K', 600));
      const again = await until(
        () => api.run(rerun),
        (x) => x?.status === 'COMPLETED',
      );
      expect(again?.importCounts).toEqual({ created: 0, updated: 0, deleted: 0, unchanged: 600 });
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 180_000);
});
