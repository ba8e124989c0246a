/**
 * The importer over the in-memory store: what one run writes, what a repeated run does not write, the delete
 * guard, and a run that a store fault stops part-way, after which the next run converges.
 */
import { Importer } from '../../../lib/imports/importer';
import { ImportManifest } from '../../../lib/imports/manifest';
import type { ImportIdentityInput } from '../../../lib/imports/importInput';
import { LinkClaims } from '../../../lib/links/claims';
import type { IdentityDoc } from '../../../lib/identities/model';
import { DomainError } from '../../../lib/util/domainError';
import { StoreError } from '../../../lib/store/errors';
import { createMemoryStore, type MemoryStore } from '../../support/memoryStore';

const TENANT = '11111111-1111-4111-8111-111111111111';
const PK = `${TENANT}|src:HR`;

const person = (i: number, lastName = `Last${i}`): ImportIdentityInput => ({
  externalId: `H${i}`,
  affiliationType: 'EMPLOYMENT',
  firstName: `First${i}`,
  lastName,
});
const people = (n: number, lastName?: (i: number) => string) =>
  Array.from({ length: n }, (_, i) => person(i, lastName?.(i)));

let memory: MemoryStore;
let importer: Importer;

const stored = () => memory.documents<IdentityDoc>('identities', PK);
const byExternalId = () => new Map(stored().map((d) => [d.externalId, d]));

beforeEach(() => {
  memory = createMemoryStore();
  importer = new Importer(memory.store, new LinkClaims(memory.store), undefined);
});

afterEach(() => expect(memory.indexGaps()).toEqual([]));

describe('Importer', () => {
  it('creates the identities of a new source and records their content hashes in the manifest', async () => {
    const counts = await importer.import(TENANT, 'HR', people(3));
    expect(counts).toEqual({ created: 3, updated: 0, deleted: 0, unchanged: 0 });
    const docs = byExternalId();
    expect([...docs.keys()].sort()).toEqual(['H0', 'H1', 'H2']);
    expect(docs.get('H1')).toMatchObject({
      tenantId: TENANT,
      sourceKind: 'custom',
      sourceKey: 'src:HR',
      externalIdKey: 'H1',
      givenName: 'First1',
      familyName: 'Last1',
      affiliationType: 'employment',
      active: true,
      version: 1,
      link: { status: 'notAsserted' },
    });
    const manifest = await ImportManifest.load(memory.store, PK);
    expect(manifest.entries.get('H1')).toEqual({ id: docs.get('H1')?.id, hash: docs.get('H1')?.contentHash });
    // The lease is given back.
    expect(memory.document('imports', PK, 'lease')).toBeUndefined();
  });

  it('updates what changed and leaves the rest as it is', async () => {
    await importer.import(TENANT, 'HR', people(3));
    const before = byExternalId();
    const counts = await importer.import(
      TENANT,
      'HR',
      people(3, (i) => (i === 2 ? 'Married' : `Last${i}`)),
    );
    expect(counts).toEqual({ created: 0, updated: 1, deleted: 0, unchanged: 2 });
    const after = byExternalId();
    expect(after.get('H2')).toMatchObject({ familyName: 'Married', version: 2, id: before.get('H2')?.id });
    expect(after.get('H0')?._etag).toBe(before.get('H0')?._etag);
    expect(after.get('H1')?._etag).toBe(before.get('H1')?._etag);
  });

  it('writes no identity and no manifest when the set is unchanged', async () => {
    await importer.import(TENANT, 'HR', people(5));
    const before = stored();
    const identityWrites = memory.writes('identities');
    const manifestWrites = memory.requests({ container: 'imports', ops: ['upsert'] });
    const counts = await importer.import(TENANT, 'HR', people(5));
    expect(counts).toEqual({ created: 0, updated: 0, deleted: 0, unchanged: 5 });
    expect(memory.writes('identities')).toBe(identityWrites);
    expect(memory.requests({ container: 'imports', ops: ['upsert'] })).toBe(manifestWrites);
    expect(stored()).toEqual(before);
  });

  it('deletes the identities missing from the set, and releases the directory user a deleted one held', async () => {
    const claims = new LinkClaims(memory.store);
    await importer.import(TENANT, 'HR', people(3));
    const leaving = byExternalId().get('H2');
    if (!leaving) throw new Error('not imported');
    // H2 is linked to a directory user (its claim first, then the identity, as the service links).
    expect(await claims.claim(TENANT, 'user-2', leaving)).toBe('claimed');
    const { _etag, ...doc } = leaving;
    await memory.store
      .collection<IdentityDoc>('identities')
      .replace({ ...doc, link: { status: 'linked', source: 'asserted', userId: 'user-2' } }, _etag);

    const counts = await importer.import(TENANT, 'HR', people(2));
    expect(counts).toEqual({ created: 0, updated: 0, deleted: 1, unchanged: 2 });
    expect([...byExternalId().keys()].sort()).toEqual(['H0', 'H1']);
    expect(await claims.get(TENANT, 'user-2')).toBeUndefined();
    expect((await ImportManifest.load(memory.store, PK)).entries.has('H2')).toBe(false);
  });

  it("deletes an identity linked after it was read: the delete holds the version read, so the new link's claim is released too", async () => {
    const claims = new LinkClaims(memory.store);
    await importer.import(TENANT, 'HR', people(3));
    const leaving = byExternalId().get('H2');
    if (!leaving) throw new Error('not imported');
    // An association links H2 between the importer's read and its delete (its claim first, then the identity).
    expect(await claims.claim(TENANT, 'user-2', leaving)).toBe('claimed');
    const { _etag, ...unlinked } = leaving;
    let linkedMeanwhile = false;
    memory.faults.add({
      ops: ['delete'],
      container: 'identities',
      match: (target) => {
        if (target.id !== leaving.id || linkedMeanwhile) return false;
        linkedMeanwhile = true;
        memory.writeNow('identities', {
          ...unlinked,
          link: { status: 'linked', source: 'asserted', userId: 'user-2' },
        });
        return false; // the request itself goes on, against the changed identity
      },
      status: 412,
    });

    const counts = await importer.import(TENANT, 'HR', people(2));
    expect(linkedMeanwhile).toBe(true);
    expect(counts).toEqual({ created: 0, updated: 0, deleted: 1, unchanged: 2 });
    expect([...byExternalId().keys()].sort()).toEqual(['H0', 'H1']);
    expect(await claims.get(TENANT, 'user-2')).toBeUndefined();
  });

  it('refuses a set that would delete more of the source than allowed, and changes nothing', async () => {
    importer = new Importer(memory.store, new LinkClaims(memory.store), 0.5);
    await importer.import(TENANT, 'HR', people(4));
    const before = stored();
    const writes = memory.writes('identities');

    const err = await importer.import(TENANT, 'HR', people(1)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DomainError);
    expect(err).toMatchObject({ code: 'IMPORT_DELETE_LIMIT_EXCEEDED', details: { wouldDelete: 3, held: 4 } });
    expect((err as Error).message).not.toMatch(/H\d/);
    // A request may ask for a stricter limit than the setting.
    await expect(importer.import(TENANT, 'HR', people(3), { maxDeletedRatio: 0.1 })).rejects.toMatchObject({
      code: 'IMPORT_DELETE_LIMIT_EXCEEDED',
    });

    expect(memory.writes('identities')).toBe(writes);
    expect(stored()).toEqual(before);
    // Within the limit it deletes.
    expect(await importer.import(TENANT, 'HR', people(2))).toMatchObject({ deleted: 2, unchanged: 2 });
  });

  it('creates one by one what a failed batch did not, and waits out a throttled write', async () => {
    const batch = memory.faults.add({ ops: ['batch'], container: 'identities', status: 503 });
    const throttled = memory.faults.add({ ops: ['create'], container: 'identities', status: 429, retryAfterMs: 5 });
    const counts = await importer.import(TENANT, 'HR', people(6));
    expect(batch.hits).toBe(1);
    expect(throttled.hits).toBe(1);
    expect(counts).toEqual({ created: 6, updated: 0, deleted: 0, unchanged: 0 });
    expect(stored()).toHaveLength(6);
  });

  it('after a store failure part-way through an update, the next run converges and a third writes nothing', async () => {
    await importer.import(TENANT, 'HR', people(10));
    const fault = memory.faults.add({ ops: ['replace'], container: 'identities', status: 503, skip: 4 });
    const changed = people(10, () => 'Renamed');

    const err = await importer.import(TENANT, 'HR', changed).catch((e: unknown) => e);
    expect(fault.hits).toBe(1);
    expect(err).toBeInstanceOf(StoreError);
    expect(err).toMatchObject({ failure: 'unavailable' });
    const renamed = stored().filter((d) => d.familyName === 'Renamed').length;
    expect(renamed).toBeGreaterThanOrEqual(4);
    expect(renamed).toBeLessThan(10);
    // The lease was given back: the next run is not refused as in progress.
    expect(memory.document('imports', PK, 'lease')).toBeUndefined();

    const second = await importer.import(TENANT, 'HR', changed);
    expect(second).toEqual({ created: 0, updated: 10 - renamed, deleted: 0, unchanged: renamed });
    expect(stored().map((d) => d.familyName)).toEqual(Array(10).fill('Renamed'));

    const writes = memory.writes('identities');
    expect(await importer.import(TENANT, 'HR', changed)).toEqual({ created: 0, updated: 0, deleted: 0, unchanged: 10 });
    expect(memory.writes('identities')).toBe(writes);
  });

  it('after the manifest could not be written, the next run adopts the identities it created (no duplicates)', async () => {
    // The intent is saved (first upsert of a segment), the identities are created, the outcome is not saved.
    const fault = memory.faults.add({
      ops: ['upsert'],
      container: 'imports',
      status: 503,
      skip: 2,
      count: Infinity,
    });
    await expect(importer.import(TENANT, 'HR', people(5))).rejects.toMatchObject({ failure: 'unavailable' });
    expect(fault.hits).toBeGreaterThan(0);
    expect(stored()).toHaveLength(5);
    fault.remove();

    const again = await importer.import(TENANT, 'HR', people(5));
    expect(again).toEqual({ created: 5, updated: 0, deleted: 0, unchanged: 0 });
    expect(stored()).toHaveLength(5);
    const manifest = await ImportManifest.load(memory.store, PK);
    for (const d of stored()) expect(manifest.entries.get(d.externalId)).toEqual({ id: d.id, hash: d.contentHash });
    expect(await importer.import(TENANT, 'HR', people(5))).toMatchObject({ unchanged: 5, created: 0 });
  });
});
