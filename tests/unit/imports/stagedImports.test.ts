/**
 * Staged imports over the in-memory store: a part refused in a race leaves nothing stored, and startImport
 * refuses at once while another import of the source is applied (naming its run).
 */
import { StagedImports } from '../../../lib/imports/stagedImports';
import { RunHistory } from '../../../lib/imports/runHistory';
import { acquireJobLease } from '../../../lib/imports/importLease';
import { DomainError } from '../../../lib/util/domainError';
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

const person = (externalId: string, lastName = externalId) => ({
  externalId,
  affiliationType: 'EMPLOYMENT',
  firstName: 'F',
  lastName,
});

let memory: MemoryStore;
let staged: StagedImports;

beforeEach(() => {
  memory = createMemoryStore();
  staged = new StagedImports(memory.store, new RunHistory(memory.store), new RecordingQueue(), SETTINGS);
});

afterEach(() => expect(memory.indexGaps()).toEqual([]));

const partDocs = () =>
  memory
    .documents<{ kind: string }>('imports', PK)
    .filter((d) => d.kind === 'importPartKeys' || d.kind === 'importPartBody');

async function refusal(work: Promise<unknown>): Promise<DomainError> {
  const err = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(DomainError);
  return err as DomainError;
}

describe('StagedImports', () => {
  it('leaves nothing stored of a part refused with IMPORT_PART_CONFLICT after another request recorded its sequence first', async () => {
    const { importId } = await staged.start(CALLER, 'HR', { dryRun: false });
    // Another request records part 1 with other identities between this request's read of the session and
    // its write of it: this request's write loses (412), it reads again and finds the conflict.
    let raced = false;
    memory.faults.add({
      ops: ['replace'],
      container: 'imports',
      status: 0,
      match: (target) => {
        if (raced || target.id !== `import-${importId}`) return false;
        raced = true;
        const session = memory.document<{ parts: unknown[] }>('imports', PK, `import-${importId}`);
        const { _etag: _e, ...doc } = session as { _etag: string; parts: unknown[] };
        memory.writeNow('imports', { ...doc, parts: [[1, 1, 'otherPartHash000000000']], identitiesReceived: 1 });
        return false;
      },
    });
    const err = await refusal(staged.addPart(TENANT, { importId, sequence: 1, identities: [person('H-RACE-1')] }));
    expect(raced).toBe(true);
    expect(err.code).toBe('IMPORT_PART_CONFLICT');
    expect(err.message).not.toContain('H-RACE-1');
    expect(partDocs()).toEqual([]);
  });

  it('keeps a part sent again with the same identities (it is the recorded one)', async () => {
    const { importId } = await staged.start(CALLER, 'HR', { dryRun: false });
    await staged.addPart(TENANT, { importId, sequence: 1, identities: [person('H1')] });
    const again = await staged.addPart(TENANT, { importId, sequence: 1, identities: [person('H1')] });
    expect(again).toMatchObject({ sequence: 1, partsReceived: 1, identitiesReceived: 1 });
    const conflict = await refusal(staged.addPart(TENANT, { importId, sequence: 1, identities: [person('H2')] }));
    expect(conflict.code).toBe('IMPORT_PART_CONFLICT');
    expect(partDocs()).toHaveLength(2);
  });

  it('refuses startImport at once with IMPORT_IN_PROGRESS naming the run that holds the source', async () => {
    await acquireJobLease(memory.store, PK, 'run-of-another-job', Date.now(), '01890000-0000-7000-8000-000000000001');
    const err = await refusal(staged.start(CALLER, 'HR', { dryRun: false }));
    expect(err.code).toBe('IMPORT_IN_PROGRESS');
    expect(err.details).toEqual({ runId: 'run-of-another-job' });
    expect(err.message).not.toContain('HR');
    expect(memory.documents<{ kind: string }>('imports', PK).filter((d) => d.kind === 'stagedImport')).toEqual([]);
    // A dry run writes nothing and holds no lease: it may be started meanwhile.
    await expect(staged.start(CALLER, 'HR', { dryRun: true })).resolves.toMatchObject({ maxIdentitiesPerPart: 100 });
  });

  it('starts an import once the lease of the source has lapsed', async () => {
    await acquireJobLease(
      memory.store,
      PK,
      'old-run',
      Date.now() - 11 * 60_000,
      '01890000-0000-7000-8000-000000000001',
    );
    await expect(staged.start(CALLER, 'HR', { dryRun: false })).resolves.toMatchObject({ maxIdentitiesPerPart: 100 });
  });

  it('bounds the staged imports and dry runs an organization has started and not ended (IMPORT_LIMIT_REACHED)', async () => {
    let now = Date.now();
    staged = new StagedImports(memory.store, new RunHistory(memory.store), new RecordingQueue(), SETTINGS, () => now);
    const first = await staged.start(CALLER, 'HR', { dryRun: false });
    await staged.start(CALLER, 'Payroll', { dryRun: false });
    const over = await refusal(staged.start(CALLER, 'Students', { dryRun: false }));
    expect(over.code).toBe('IMPORT_LIMIT_REACHED');
    expect(over.message).toContain('IMPORT_MAX_OPEN_PER_TENANT');
    expect(over.message).not.toContain('Students');
    // Dry runs have their own bound.
    await staged.start(CALLER, 'Students', { dryRun: true });
    expect((await refusal(staged.start(CALLER, 'Students', { dryRun: true }))).code).toBe('IMPORT_LIMIT_REACHED');
    // Another organization is not counted.
    const other = { ...CALLER, tenantId: '33333333-3333-4333-8333-333333333333' };
    await expect(staged.start(other, 'HR', { dryRun: false })).resolves.toMatchObject({ maxIdentitiesPerPart: 100 });
    // An import whose run ended (an empty set is refused at once) counts no more.
    await expect(staged.complete(CALLER, first.importId)).resolves.toMatchObject({ status: 'rejected' });
    await staged.start(CALLER, 'Students', { dryRun: false });
    // Nor one left open past its expiry.
    now += SETTINGS.ttlSeconds * 1000 + 1;
    await staged.start(CALLER, 'Contractors', { dryRun: false });
    await staged.start(CALLER, 'Alumni', { dryRun: false });
  });

  it('does not count an import whose start failed against the bound', async () => {
    const refused = memory.faults.add({
      ops: ['create'],
      container: 'imports',
      status: 400,
      match: (t) => t.id?.startsWith('import-') === true,
      count: 2,
    });
    await expect(staged.start(CALLER, 'HR', { dryRun: false })).rejects.toThrow();
    await expect(staged.start(CALLER, 'HR', { dryRun: false })).rejects.toThrow();
    expect(refused.hits).toBe(2);
    const list = memory.document<{ imports: unknown[] }>('imports', `${TENANT}|_imports`, 'open-imports');
    expect(list?.imports).toEqual([]);
    await expect(staged.start(CALLER, 'HR', { dryRun: false })).resolves.toMatchObject({ maxIdentitiesPerPart: 100 });
  });
});
