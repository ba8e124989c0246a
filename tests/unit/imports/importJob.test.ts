/**
 * A staged import's job over the in-memory store, its queue messages taken one by one: it applies the set,
 * and when it ends, whatever the outcome (completed, refused by a rule of the whole set, failed, expired),
 * no part of the import is left stored, recorded by the session or not.
 */
import { StagedImports } from '../../../lib/imports/stagedImports';
import { RunHistory } from '../../../lib/imports/runHistory';
import { Importer } from '../../../lib/imports/importer';
import { StagedStore } from '../../../lib/imports/stagedStore';
import { resumeImportJobs, runImportStep, type ImportJobDeps } from '../../../lib/imports/importJob';
import { LinkClaims } from '../../../lib/links/claims';
import { ImportManifest } from '../../../lib/imports/manifest';
import { createMemoryStore, type MemoryStore } from '../../support/memoryStore';
import { RecordingQueue } from '../../support/recordingQueue';

const TENANT = '11111111-1111-4111-8111-111111111111';
const PK = `${TENANT}|src:HR`;
const CALLER = { tenantId: TENANT, clientId: 'importer-client', correlationId: 'c-1' };
const SETTINGS = {
  maxIdentitiesPerPart: 100,
  maxIdentities: 1_000,
  ttlSeconds: 3600,
  perTenant: { maxOpen: 2, maxDryRuns: 1 },
};

const person = (externalId: string) => ({ externalId, affiliationType: 'EMPLOYMENT', firstName: 'F', lastName: 'L' });

let memory: MemoryStore;
let queue: RecordingQueue;
let runs: RunHistory;
let deps: ImportJobDeps;
let staged: StagedImports;

beforeEach(() => {
  memory = createMemoryStore();
  queue = new RecordingQueue();
  runs = new RunHistory(memory.store);
  deps = { store: memory.store, importer: new Importer(memory.store, new LinkClaims(memory.store), 0.5), runs, queue };
  staged = new StagedImports(memory.store, runs, queue, SETTINGS);
});

afterEach(() => expect(memory.indexGaps()).toEqual([]));

const partDocs = () =>
  memory
    .documents<{ kind: string }>('imports', PK)
    .filter((d) => d.kind === 'importPartKeys' || d.kind === 'importPartBody');

/** Stages a set in parts of the given externalIds, and a stray part the session never recorded; completes it. */
async function stage(parts: string[][]): Promise<{ importId: string; runId: string }> {
  const { importId } = await staged.start(CALLER, 'HR', { dryRun: false });
  for (const [i, ids] of parts.entries())
    await staged.addPart(TENANT, { importId, sequence: i + 1, identities: ids.map(person) });
  // As a resend refused in a race, or a write whose session update never came, would leave it.
  await new StagedStore(memory.store).writePart(
    PK,
    importId,
    parts.length + 1,
    { hash: 'strayPartHash000000000', keys: [['STRAY', 'h']], identities: [] },
    3600,
  );
  const { runId } = await staged.complete(CALLER, importId);
  return { importId, runId };
}

/** Takes the queue's messages and runs them until none is left. */
async function drain(): Promise<void> {
  for (let work = queue.take(); work; work = queue.take()) {
    const { partition, importId, step } = work;
    if (work.kind !== 'import' || !partition || !importId || step === undefined) throw new Error('not a job step');
    await runImportStep(deps, { tenantId: work.tenantId, partition, importId, step });
  }
}

/** The tenant's imports started and not ended (IMPORT_MAX_OPEN_PER_TENANT counts them). */
const openImports = () =>
  memory.document<{ imports: unknown[] }>('imports', `${TENANT}|_imports`, 'open-imports')?.imports ?? [];

const runStatus = async (runId: string) => (await runs.get(TENANT, runId))?.status;

describe('the job of a staged import', () => {
  it('applies the set and deletes every stored part when it completes', async () => {
    const { runId } = await stage([['H1', 'H2'], ['H3']]);
    await drain();
    expect(await runStatus(runId)).toBe('completed');
    // What its writes cost is in its run record: divided by the identities it changed, a changed identity's cost.
    const record = memory.document<{ writeRequestUnits?: number }>('imports', PK, `run-${runId}`);
    expect(record?.writeRequestUnits).toBeGreaterThan(3);
    expect(openImports()).toEqual([]);
    expect(
      memory
        .documents<{ externalId: string }>('identities', PK)
        .map((d) => d.externalId)
        .sort(),
    ).toEqual(['H1', 'H2', 'H3']);
    expect(partDocs()).toEqual([]);
  });

  it('deletes every stored part when a rule of the whole set refuses it (an externalId in two parts)', async () => {
    const { runId } = await stage([['H1'], ['H1']]);
    await drain();
    expect(await runStatus(runId)).toBe('rejected');
    expect(memory.documents('identities', PK)).toEqual([]);
    expect(partDocs()).toEqual([]);
  });

  it('deletes every stored part when its step failed too often', async () => {
    const { importId, runId } = await stage([['H1']]);
    const job = memory.document<Record<string, unknown>>('imports', PK, `job-${importId}`);
    memory.writeNow('imports', { ...job, attempts: 6 });
    await drain();
    expect(await runStatus(runId)).toBe('failed');
    expect(partDocs()).toEqual([]);
  });

  it('deletes every stored part when the import expired before its job came to it', async () => {
    const { importId, runId } = await stage([['H1']]);
    queue.take();
    await memory.store.collection('imports').delete(PK, `import-${importId}`);
    await resumeImportJobs(deps, Date.now() + 2 * 60_000);
    expect(await runStatus(runId)).toBe('failed');
    expect(partDocs()).toEqual([]);
    expect(openImports()).toEqual([]);
  });

  it('applies a set in steps of a bounded number of writes, then deletes what it no longer holds; an unchanged set again is one step', async () => {
    deps = { ...deps, stepWrites: 2 };
    await stage([['H1', 'H2'], ['H3', 'H4'], ['H5']]);
    await drain();
    expect(memory.documents('identities', PK)).toHaveLength(5);
    // Messages: the completion's, then one per step after the check and after each of the first two parts.
    expect(queue.sent).toBe(1 + 3);

    const sentBefore = queue.sent;
    const { runId } = await stage([['H1', 'H2'], ['H3']]);
    await drain();
    expect(await runs.get(TENANT, runId)).toMatchObject({
      status: 'completed',
      importCounts: { created: 0, updated: 0, deleted: 2, unchanged: 3 },
    });
    expect(
      memory
        .documents<{ externalId: string }>('identities', PK)
        .map((d) => d.externalId)
        .sort(),
    ).toEqual(['H1', 'H2', 'H3']);
    // The completion's, and the deletions' after the check (nothing to write: no part is applied).
    expect(queue.sent - sentBefore).toBe(1 + 1);

    const sentAgain = queue.sent;
    const again = await stage([['H1', 'H2'], ['H3']]);
    await drain();
    expect(await runs.get(TENANT, again.runId)).toMatchObject({
      status: 'completed',
      importCounts: { created: 0, updated: 0, deleted: 0, unchanged: 3 },
    });
    // The completion's only: the check finds nothing to do and ends the run in the same step.
    expect(queue.sent - sentAgain).toBe(1);
  });

  it('a dry run ends after the check with what it would write, and writes nothing', async () => {
    const { importId } = await staged.start(CALLER, 'HR', { dryRun: true });
    await staged.addPart(TENANT, { importId, sequence: 1, identities: ['H1', 'H2'].map(person) });
    const { runId } = await staged.complete(CALLER, importId);
    await drain();
    expect(await runs.get(TENANT, runId)).toMatchObject({
      status: 'completed',
      dryRun: true,
      importCounts: { created: 2, updated: 0, deleted: 0, unchanged: 0 },
    });
    expect(memory.documents('identities', PK)).toEqual([]);
    expect(partDocs()).toEqual([]);
  });

  it('holds a slice of the manifest in each step, not the source: a large set is checked and its deletions found range by range', async () => {
    const held: number[] = [];
    const load = ImportManifest.load.bind(ImportManifest);
    const spy = jest.spyOn(ImportManifest, 'load').mockImplementation(async (...args) => {
      const manifest = await load(...args);
      held.push(manifest.entries.size);
      return manifest;
    });
    try {
      // 60 identities in parts of 10; a step holds at most 10 externalIds (of the set and of the manifest each).
      deps = { ...deps, rangeKeys: 10 };
      const ids = Array.from({ length: 60 }, (_, i) => `R${i}`);
      const parts = (list: string[]) =>
        Array.from({ length: list.length / 10 }, (_, p) => list.slice(p * 10, p * 10 + 10));
      await stage(parts(ids));
      await drain();
      expect(memory.documents('identities', PK)).toHaveLength(60);

      held.length = 0;
      const sentBefore = queue.sent;
      const { runId } = await stage(parts(ids.slice(0, 50)));
      await drain();
      expect(await runs.get(TENANT, runId)).toMatchObject({
        status: 'completed',
        importCounts: { created: 0, updated: 0, deleted: 10, unchanged: 50 },
      });
      expect(memory.documents('identities', PK)).toHaveLength(50);
      // Checked in 5 ranges (50 / 10), then a deletion step per range that has identities to delete.
      expect(queue.sent - sentBefore).toBeGreaterThanOrEqual(1 + 5);
      // Every step held a range's share of the 60 entries (about 12 each), never the source's manifest.
      expect(held.length).toBeGreaterThan(5);
      expect(Math.max(...held)).toBeLessThan(30);

      // An externalId in two parts is found in whichever range it falls: the set is refused, nothing written.
      const dup = await stage([ids.slice(0, 10), [...ids.slice(10, 19), 'R3'], ids.slice(20, 50)]);
      await drain();
      expect(await runs.get(TENANT, dup.runId)).toMatchObject({
        status: 'rejected',
        failure: { code: 'BAD_USER_INPUT' },
      });
      expect((await runs.get(TENANT, dup.runId))?.failure?.message).toContain('part 2, identities[9]');
      expect(memory.documents('identities', PK)).toHaveLength(50);
    } finally {
      spy.mockRestore();
    }
  });
});
