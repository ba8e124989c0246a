import type { IdentityAttributes, IdentityDoc } from '../../../lib/identities/model';
import { newIdentityDoc } from '../../../lib/identities/rules';
import { backfillUpnKeys } from '../../../lib/identities/upnKeysBackfill';
import { RequestUnitPacer } from '../../../lib/store/requestUnitPacing';
import { createMemoryStore, type MemoryStore } from '../../support/memoryStore';

const TENANT = 't-1';
const T0 = '2026-01-01T00:00:00.000Z';

const attributes = (i: number, upn?: string): IdentityAttributes => ({
  externalId: `e-${i}`,
  givenName: 'Anna',
  familyName: 'Berg',
  active: true,
  affiliationType: 'employment',
  personalNumbers: [],
  identityDocumentReferences: [],
  ...(upn !== undefined ? { directoryUserPrincipalName: upn } : {}),
});

/** An identity as stored before UPN keys existed. */
function stored(i: number, o: { tenantId?: string; source?: string; upn?: string } = {}): IdentityDoc {
  const { upnKeys: _keys, ...doc } = newIdentityDoc({
    id: `id-${i}`,
    tenantId: o.tenantId ?? TENANT,
    sourceKind: 'custom',
    sourceKey: o.source ?? 'hr',
    attributes: attributes(i, o.upn),
    now: T0,
    link: { status: 'linked', source: 'manual', userId: `u-${i}`, userPrincipalName: `Linked.${i}@Corp.Example` },
  });
  return doc;
}

let memory: MemoryStore;
let pacer: RequestUnitPacer;

beforeEach(() => {
  pacer = new RequestUnitPacer({ tenantRequestUnitsPerSecond: 1_000_000, instanceRequestUnitsPerSecond: 1_000_000 });
  memory = createMemoryStore({ pacer });
});

async function put(...docs: IdentityDoc[]): Promise<void> {
  for (const doc of docs) await memory.store.collection<IdentityDoc>('identities').create(doc);
}

const identities = () => memory.documents<IdentityDoc>('identities');

describe('backfillUpnKeys', () => {
  it("gives a tenant's identities without keys their keys, leaving version, lastModified and other tenants alone", async () => {
    await put(
      stored(1, { upn: 'Anna.Berg@Corp.Example' }),
      stored(2, { source: 'payroll' }),
      stored(3, { tenantId: 't-2', upn: 'X@Corp.Example' }),
    );
    const result = await backfillUpnKeys(memory.store, TENANT, 100);
    expect(result).toEqual({ read: 2, written: 2, changedMeanwhile: 0, more: false });
    const byId = new Map(identities().map((d) => [d.id, d]));
    expect(byId.get('id-1')).toMatchObject({
      upnKeys: ['anna.berg@corp.example', 'linked.1@corp.example'],
      version: 1,
      lastModified: T0,
    });
    expect(byId.get('id-2')?.upnKeys).toEqual(['linked.2@corp.example']);
    expect(byId.get('id-3')).not.toHaveProperty('upnKeys');
    expect(memory.indexGaps()).toEqual([]);
  });

  it('is bulk work of the tenant: every request is paced by its budget', async () => {
    await put(stored(1), stored(2));
    await backfillUpnKeys(memory.store, TENANT, 100);
    // One query page and two replaces, all admitted by the pacer for the tenant.
    expect(pacer.stats()[TENANT]?.admitted).toBe(3);
  });

  it('stops after maxWrites, and the next run goes on with what is left and writes nothing twice', async () => {
    await put(stored(1), stored(2), stored(3));
    expect(await backfillUpnKeys(memory.store, TENANT, 2)).toEqual({
      read: 3,
      written: 2,
      changedMeanwhile: 0,
      more: true,
    });
    const writes = memory.writes('identities');
    expect(await backfillUpnKeys(memory.store, TENANT, 2)).toEqual({
      read: 3,
      written: 1,
      changedMeanwhile: 0,
      more: false,
    });
    expect(memory.writes('identities')).toBe(writes + 1);
    expect(await backfillUpnKeys(memory.store, TENANT, 2)).toEqual({
      read: 3,
      written: 0,
      changedMeanwhile: 0,
      more: false,
    });
    expect(identities().every((d) => Array.isArray(d.upnKeys))).toBe(true);
  });

  it('writes with the entity tag: an identity changed meanwhile is left to the write that changed it', async () => {
    await put(stored(1), stored(2));
    memory.faults.add({
      ops: ['replace'],
      container: 'identities',
      match: (t) => t.id === 'id-1',
      status: 412,
      count: 1,
    });
    expect(await backfillUpnKeys(memory.store, TENANT, 100)).toEqual({
      read: 2,
      written: 1,
      changedMeanwhile: 1,
      more: false,
    });
  });

  it('reads the tenant page by page', async () => {
    await put(...Array.from({ length: 205 }, (_, i) => stored(i)));
    expect(await backfillUpnKeys(memory.store, TENANT, 1000)).toMatchObject({ read: 205, written: 205, more: false });
    expect(memory.requests({ container: 'identities', ops: ['query'] })).toBe(3);
  });
});
