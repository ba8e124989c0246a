/**
 * The run history over the in-memory store, on a clock of the test's own: runs recorded around their work
 * (completed, failed with the counts written, rejected), staged runs updated by their job and never after
 * their end, runs listed newest first and found by id only in their organization, and a run whose process
 * stopped reported abandoned once its time passed, without waiting for it.
 */
import { RunHistory, RUN_LIMIT_MS, type RunStart } from '../../../lib/imports/runHistory';
import { JOB_LEASE_MS } from '../../../lib/imports/importLease';
import { DomainError } from '../../../lib/util/domainError';
import { StoreError } from '../../../lib/store/errors';
import type { Logger } from '../../../lib/log/logger';
import { createMemoryStore, type MemoryStore } from '../../support/memoryStore';

const TENANT = '11111111-1111-4111-8111-111111111111';
const OTHER_TENANT = '33333333-3333-4333-8333-333333333333';
const PK = `${TENANT}|src:HR`;
const START: RunStart = {
  tenantId: TENANT,
  source: 'HR',
  operation: 'import',
  clientId: 'importer-client',
  correlationId: 'c-1',
  submitted: 3,
};

const lines: Array<{ message: string; fields?: Record<string, unknown> }> = [];
const log: Logger = {
  debug: () => undefined,
  info: (message, fields) => lines.push({ message, fields }),
  warn: (message, fields) => lines.push({ message, fields }),
  error: (message, fields) => lines.push({ message, fields }),
  child: () => log,
};

let memory: MemoryStore;
let now: number;
let runs: RunHistory;

beforeEach(() => {
  memory = createMemoryStore();
  now = Date.parse('2026-03-01T12:00:00Z');
  runs = new RunHistory(memory.store, () => now++);
  lines.length = 0;
});

afterEach(() => expect(memory.indexGaps()).toEqual([]));

const counts = { created: 1, updated: 1, deleted: 0, unchanged: 1 };

describe('RunHistory', () => {
  it('records a run around its work: running while it works, then completed with its counts', async () => {
    const { runId, result } = await runs.record(
      START,
      log,
      async (run) => {
        expect(await runs.get(TENANT, run.id)).toMatchObject({ status: 'running', endedAt: null });
        return 'done';
      },
      () => ({ importCounts: counts }),
    );
    expect(result).toBe('done');
    expect(await runs.get(TENANT, runId)).toMatchObject({
      id: runId,
      operation: 'import',
      source: 'HR',
      status: 'completed',
      submitted: 3,
      importCounts: counts,
      failure: null,
    });
    expect(lines).toContainEqual({ message: 'run ended', fields: expect.objectContaining({ status: 'completed' }) });
  });

  it('records a run that failed part-way with what it wrote, and one refused before writing as rejected', async () => {
    let failedId = '';
    await expect(
      runs.record(
        START,
        log,
        async (run) => {
          failedId = run.id;
          run.importCounts.created = 2;
          throw new StoreError('unavailable', 'The store is unavailable');
        },
        () => ({}),
      ),
    ).rejects.toThrow('unavailable');
    // The store's failure is named by its kind, never by what was sent.
    expect(await runs.get(TENANT, failedId)).toMatchObject({
      status: 'failed',
      importCounts: { created: 2 },
      failure: { code: 'STORE_UNAVAILABLE' },
    });

    let rejectedId = '';
    await expect(
      runs.record(
        START,
        log,
        async (run) => {
          rejectedId = run.id;
          throw new DomainError('IMPORT_TOO_LARGE', 'Too large');
        },
        () => ({}),
      ),
    ).rejects.toThrow('Too large');
    expect(await runs.get(TENANT, rejectedId)).toMatchObject({
      status: 'rejected',
      importCounts: null,
      failure: { code: 'IMPORT_TOO_LARGE' },
    });
  });

  it('updates a staged run as its job goes, and never after it ended; finds it only in its organization', async () => {
    const runId = '01950000-0000-7000-8000-000000000001';
    await runs.recordStaged({ ...START, runId, importId: '01950000-0000-7000-8000-0000000000aa' });
    expect(await runs.get(TENANT, runId)).toMatchObject({ status: 'queued', progress: { applied: 0, total: 3 } });
    await runs.updateStaged(PK, runId, { status: 'running', progress: { applied: 2, total: 3 } });
    expect(await runs.get(TENANT, runId)).toMatchObject({ status: 'running', progress: { applied: 2, total: 3 } });
    await runs.updateStaged(PK, runId, {
      status: 'completed',
      endedAt: new Date(now).toISOString(),
      importCounts: counts,
    });
    await runs.updateStaged(PK, runId, { status: 'failed' });
    expect(await runs.get(TENANT, runId)).toMatchObject({ status: 'completed', importCounts: counts });
    expect(await runs.get(OTHER_TENANT, runId)).toBeUndefined();
    expect(await runs.get(TENANT, 'not-a-run-id')).toBeUndefined();

    await runs.discardStaged(TENANT, 'HR', runId);
    expect(await runs.get(TENANT, runId)).toBeUndefined();
  });

  it('lists runs newest first, bounded, and pages them by id and status', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push(
        (
          await runs.record(
            START,
            log,
            () => Promise.resolve(i),
            () => ({ importCounts: counts }),
          )
        ).runId,
      );
    await runs.recordStaged(
      { ...START, runId: '019f0000-0000-7000-8000-000000000009', importId: '019f0000-0000-7000-8000-0000000000bb' },
      { failure: { code: 'BAD_USER_INPUT', message: 'The import set is empty' } },
    );
    expect((await runs.list(PK, 2)).map((r) => r.id)).toEqual(['019f0000-0000-7000-8000-000000000009', ids[2]]);
    expect((await runs.page(PK, { beforeId: `run-${ids[2]}`, limit: 10 })).map((r) => r.id)).toEqual([ids[1], ids[0]]);
    expect((await runs.page(PK, { statuses: ['rejected'], limit: 10 })).map((r) => r.status)).toEqual(['rejected']);
  });

  it('reports a run whose process stopped abandoned once its time passed (no lease renewed, no job step)', async () => {
    const log2 = { ...log };
    let id = '';
    const stuck = runs.record(
      START,
      log2,
      (run) => {
        id = run.id;
        return new Promise<never>(() => undefined);
      },
      () => ({}),
    );
    void stuck;
    while (!id || !(await runs.get(TENANT, id))) await new Promise((r) => setImmediate(r));
    expect((await runs.get(TENANT, id))?.status).toBe('running');
    now += RUN_LIMIT_MS + 1;
    expect((await runs.get(TENANT, id))?.status).toBe('abandoned');

    const staged = '01950000-0000-7000-8000-000000000002';
    await runs.recordStaged({ ...START, runId: staged, importId: '01950000-0000-7000-8000-0000000000cc' });
    now += JOB_LEASE_MS / 2;
    expect((await runs.get(TENANT, staged))?.status).toBe('queued');
    now += JOB_LEASE_MS;
    expect((await runs.get(TENANT, staged))?.status).toBe('abandoned');
  });
});
