/**
 * The documents of a staged import over the in-memory store: the session found only through its
 * organization's pointer, replaced only if unchanged, parts stored under their sequence and hash and all of
 * them deleted (recorded or not), the job created once and replaced only if unchanged, the resumer's list.
 */
import { StagedStore, sessionId, type ImportJobDoc, type StagedImportDoc } from '../../../lib/imports/stagedStore';
import { createMemoryStore, type MemoryStore } from '../../support/memoryStore';

const TENANT = '11111111-1111-4111-8111-111111111111';
const OTHER_TENANT = '33333333-3333-4333-8333-333333333333';
const PK = `${TENANT}|src:HR`;
const IMPORT_ID = '01950000-0000-7000-8000-000000000001';

const session = (): StagedImportDoc => ({
  id: sessionId(IMPORT_ID),
  pk: PK,
  kind: 'stagedImport',
  importId: IMPORT_ID,
  tenantId: TENANT,
  source: 'HR',
  clientId: 'importer-client',
  dryRun: false,
  createdAt: '2026-03-01T12:00:00.000Z',
  expiresAt: '2099-03-02T12:00:00.000Z',
  parts: [],
  identitiesReceived: 0,
  ttl: 3600,
});

const job = (): ImportJobDoc => ({
  id: `job-${IMPORT_ID}`,
  pk: PK,
  kind: 'importJob',
  importId: IMPORT_ID,
  runId: '01950000-0000-7000-8000-0000000000aa',
  tenantId: TENANT,
  source: 'HR',
  dryRun: false,
  createdAt: '2026-03-01T12:00:00.000Z',
  phase: 'check',
  step: 0,
  nextPart: 0,
  applied: 0,
  total: 1,
  counts: { created: 0, updated: 0, deleted: 0, unchanged: 0 },
  attempts: 0,
  enqueuedAt: '2026-03-01T12:00:00.000Z',
  ttl: 3600,
});

let memory: MemoryStore;
let docs: StagedStore;

beforeEach(() => {
  memory = createMemoryStore();
  docs = new StagedStore(memory.store);
});

afterEach(() => expect(memory.indexGaps()).toEqual([]));

describe('StagedStore', () => {
  it("finds a session only through its organization's pointer, and replaces it only if unchanged", async () => {
    await docs.createSession(session());
    const read = await docs.readSession(TENANT, IMPORT_ID);
    expect(read).toMatchObject({ importId: IMPORT_ID, source: 'HR' });
    expect(await docs.readSession(OTHER_TENANT, IMPORT_ID)).toBeUndefined();
    expect(await docs.readSession(TENANT, 'not-an-import-id')).toBeUndefined();
    const { _etag, ...doc } = read!;
    expect(await docs.replaceSession({ ...doc, identitiesReceived: 2 }, _etag)).toBe(true);
    expect(await docs.replaceSession({ ...doc, identitiesReceived: 3 }, _etag)).toBe(false);
    expect((await docs.readSessionIn(PK, IMPORT_ID))?.identitiesReceived).toBe(2);
  });

  it('keeps a part under its sequence and hash, and deletes every part of the import, recorded or not', async () => {
    const part = (hash: string) => ({ hash, keys: [['E1', 'h1']] as Array<[string, string]>, identities: [] });
    await docs.writePart(PK, IMPORT_ID, 1, part('hashA'), 3600);
    await docs.writePart(PK, IMPORT_ID, 1, part('hashB'), 3600);
    await docs.writePart(PK, IMPORT_ID, 2, part('hashC'), 3600);
    // Another import's part in the same source stays.
    await docs.writePart(PK, '01950000-0000-7000-8000-000000000002', 1, part('hashA'), 3600);
    expect(await docs.readPartKeys(PK, IMPORT_ID, 1, 'hashA')).toMatchObject({ keys: [['E1', 'h1']] });
    expect(await docs.readPartBody(PK, IMPORT_ID, 1, 'hashB')).toMatchObject({ identities: [] });
    expect(await docs.readPartKeys(PK, IMPORT_ID, 1, 'hashX')).toBeUndefined();

    await docs.deletePart(PK, IMPORT_ID, 1, 'hashB');
    expect(await docs.readPartKeys(PK, IMPORT_ID, 1, 'hashB')).toBeUndefined();
    await docs.deleteParts(PK, IMPORT_ID);
    const left = memory.documents<{ kind: string; importId?: string }>('imports', PK);
    expect(left.map((d) => [d.kind, d.importId])).toEqual([
      ['importPartBody', '01950000-0000-7000-8000-000000000002'],
      ['importPartKeys', '01950000-0000-7000-8000-000000000002'],
    ]);
  });

  it('creates a job once, replaces it only if unchanged, and lists it for the resumer until taken off', async () => {
    expect(await docs.createJob(job())).toBe(true);
    expect(await docs.createJob(job())).toBe(false);
    const read = await docs.readJob(PK, IMPORT_ID);
    const etag = await docs.replaceJob({ ...job(), step: 1 }, read!._etag);
    expect(etag).toBeDefined();
    expect(await docs.replaceJob({ ...job(), step: 2 }, read!._etag)).toBeUndefined();
    expect((await docs.readJob(PK, IMPORT_ID))?.step).toBe(1);

    await docs.addToIndex(job());
    expect(await docs.indexedJobs()).toEqual([
      expect.objectContaining({ importId: IMPORT_ID, tenantId: TENANT, partition: PK, runId: job().runId }),
    ]);
    await docs.removeFromIndex(IMPORT_ID);
    expect(await docs.indexedJobs()).toEqual([]);
    await docs.deleteJob(PK, IMPORT_ID);
    expect(await docs.readJob(PK, IMPORT_ID)).toBeUndefined();
  });
});
