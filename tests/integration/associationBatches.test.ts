import { startTestStack, call, type TestStack } from '../support/stack';
import { DEV_CLIENTS, DEV_TENANT_ID } from '../../devhost/devData';
import { setFaultInjector } from '../../devhost/cosmos/faults';
import { StoreError } from '../../lib/store/errors';
import { services } from '../../lib/services';
import { diffCounters, storeCounters } from '../../lib/store/metrics';
import type { AuditEntry } from '../../lib/audit/auditLog';
import type { IdentityDoc } from '../../lib/identities/model';

type Result = {
  associated: number;
  unchanged: number;
  unknownExternalIds: string[];
  unknownUserPrincipalNames: string[];
  conflictingUserPrincipalNames: string[];
};
type Gql = {
  data?: { associateBusinessIdentities: Result } | null;
  errors?: Array<{ message: string; extensions?: { code?: string; externalIds?: string[] } }>;
};

const IMPORT = 'mutation($i: ImportBusinessIdentitiesInput!) { importBusinessIdentities(input: $i) { created } }';
const ASSOCIATE =
  'mutation($i: AssociateBusinessIdentitiesInput!) { associateBusinessIdentities(input: $i) { associated unchanged unknownExternalIds unknownUserPrincipalNames conflictingUserPrincipalNames } }';

/** New links are written in transactional batches; links that stand are recognised without a read per pair. */
describe('association in batches', () => {
  let stack: TestStack;
  const gql = async (query: string, variables: Record<string, unknown>) =>
    call<Gql>(`${stack.base}/graphql`, {
      method: 'POST',
      token: await stack.token(DEV_CLIENTS.admin),
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables }),
    });
  const prepare = async (source: string, n: number) => {
    const identities = Array.from({ length: n }, (_, i) => ({
      externalId: `${source}-${i}`,
      affiliationType: 'EMPLOYMENT',
      firstName: 'F',
      lastName: 'L',
    }));
    expect((await gql(IMPORT, { i: { source, identities } })).body.errors).toBeUndefined();
    return identities.map((p, i) => {
      const upn = `${source.toLowerCase()}.${i}@dev.example.com`;
      return { externalId: p.externalId, upn, userId: stack.directory.createUser(DEV_TENANT_ID, upn).id };
    });
  };
  const pairsOf = (people: Array<{ externalId: string; upn: string }>) =>
    people.map((p) => ({ externalId: p.externalId, userPrincipalName: p.upn }));
  const claimOf = async (userId: string) => services().claims.get(DEV_TENANT_ID, userId);
  const associatedEntries = async () =>
    (await services().audit.list(DEV_TENANT_ID)).filter((e: AuditEntry) => e.action === 'link.associated').length;

  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterEach(() => setFaultInjector(undefined));
  afterAll(async () => stack?.stop());

  it('250 new links take a few dozen store requests (claims, identities and audit entries in batches); the same list again reads no identity one by one and writes nothing', async () => {
    const people = await prepare('Bulk', 250);
    const auditBefore = await associatedEntries();
    const before = storeCounters();
    const res = await gql(ASSOCIATE, { i: { source: 'Bulk', associations: pairsOf(people) } });
    const ops = diffCounters(storeCounters(), before);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data?.associateBusinessIdentities).toMatchObject({ associated: 250, unchanged: 0 });
    expect(ops.pointReads).toBeLessThan(10);
    expect(ops.batchedWrites).toBe(750); // a claim, an identity and an audit entry per link
    expect(ops.batchRequests).toBeLessThanOrEqual(12); // 3 units of at most 100 pairs, 3 batches each
    expect(ops.writes - ops.batchedWrites).toBeLessThan(10); // the run record, nothing per pair
    for (const p of people) expect((await claimOf(p.userId))?.identityPk).toMatch(/\|src:Bulk$/);
    expect((await associatedEntries()) - auditBefore).toBe(250);

    const again = storeCounters();
    const repeat = await gql(ASSOCIATE, { i: { source: 'Bulk', associations: pairsOf(people) } });
    const repeatOps = diffCounters(storeCounters(), again);
    expect(repeat.body.data?.associateBusinessIdentities).toMatchObject({ associated: 0, unchanged: 250 });
    expect(repeatOps.pointReads).toBeLessThan(5);
    expect(repeatOps.writes - repeatOps.batchedWrites).toBeLessThan(5);
    expect(repeatOps.batchedWrites).toBe(0);
  });

  it('a user held by another identity fails only its own pair: the rest of its batch is linked, the conflict reported', async () => {
    const people = await prepare('Held', 30);
    const holder = await prepare('Holder', 1);
    // The holder's identity takes the user of Held-7 first.
    const taken = await gql(ASSOCIATE, {
      i: { source: 'Holder', associations: [{ externalId: holder[0]!.externalId, userPrincipalName: people[7]!.upn }] },
    });
    expect(taken.body.data?.associateBusinessIdentities).toMatchObject({ associated: 1 });
    const res = await gql(ASSOCIATE, { i: { source: 'Held', associations: pairsOf(people) } });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data?.associateBusinessIdentities).toEqual({
      associated: 29,
      unchanged: 0,
      unknownExternalIds: [],
      unknownUserPrincipalNames: [],
      conflictingUserPrincipalNames: [people[7]!.upn],
    });
    expect((await claimOf(people[7]!.userId))?.identityPk).toMatch(/\|src:Holder$/);
  });

  it('an identity changed between the read and its batch is linked on its own; the others of the batch are linked, each claim held once', async () => {
    const people = await prepare('Moving', 20);
    const ids = new Map<string, string>();
    let changed = 0;
    // The batch write of one identity loses its entity-tag check once, as when an import updated it meanwhile.
    setFaultInjector((op, container, target) => {
      if (container !== 'identities' || op !== 'replace' || !target) return;
      if (!ids.has('victim')) ids.set('victim', target.id);
      if (target.id === ids.get('victim') && changed++ === 0)
        throw new StoreError('preconditionFailed', 'injected: changed meanwhile');
    });
    const res = await gql(ASSOCIATE, { i: { source: 'Moving', associations: pairsOf(people) } });
    setFaultInjector(undefined);
    expect(changed).toBe(2); // lost once in the batch, written on its own
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data?.associateBusinessIdentities).toMatchObject({ associated: 20, unchanged: 0 });
    for (const p of people) expect((await claimOf(p.userId))?.identityPk).toMatch(/\|src:Moving$/);
  });

  it('the same 700 pairs sent twice at once: batches that lose fall back pair by pair; each pair counted once associated and once unchanged, every claim held by its identity', async () => {
    const people = await prepare('Twins', 700); // two parts of pairs per call, 7 batches of each kind
    const answers = await Promise.all(
      [1, 2].map(() => gql(ASSOCIATE, { i: { source: 'Twins', associations: pairsOf(people) } })),
    );
    for (const a of answers) expect(a.body.errors).toBeUndefined();
    const counts = answers.map((a) => a.body.data!.associateBusinessIdentities);
    expect(counts[0]!.associated + counts[1]!.associated).toBe(700);
    expect(counts[0]!.unchanged + counts[1]!.unchanged).toBe(700);
    for (const c of counts) expect(c.conflictingUserPrincipalNames).toEqual([]);
    const claims = await Promise.all(people.map((p) => claimOf(p.userId)));
    expect(new Set(claims.map((c) => c?.identityId)).size).toBe(700);
    for (const c of claims) expect(c?.identityPk).toMatch(/\|src:Twins$/);
    // Each identity holding a claim links to that user.
    const identities = services().store.collection<IdentityDoc>('identities');
    for (const [i, c] of claims.entries())
      expect((await identities.read(c!.identityPk, c!.identityId))?.link).toMatchObject({
        status: 'linked',
        userId: people[i]!.userId,
      });
  });

  it('two users named in one list for two identities: one is linked, the other reported in conflict', async () => {
    const people = await prepare('Twice', 3);
    const res = await gql(ASSOCIATE, {
      i: {
        source: 'Twice',
        associations: [
          { externalId: people[0]!.externalId, userPrincipalName: people[0]!.upn },
          { externalId: people[1]!.externalId, userPrincipalName: people[0]!.upn.toUpperCase() },
          { externalId: people[2]!.externalId, userPrincipalName: people[2]!.upn },
        ],
      },
    });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data?.associateBusinessIdentities).toMatchObject({
      associated: 2,
      conflictingUserPrincipalNames: [people[0]!.upn.toUpperCase()],
    });
    expect((await claimOf(people[0]!.userId))?.identityPk).toMatch(/\|src:Twice$/);
  });
});
