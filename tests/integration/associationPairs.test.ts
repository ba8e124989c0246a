import { startTestStack, call, type TestStack } from '../support/stack';
import { DEV_CLIENTS, DEV_TENANT_ID } from '../../devhost/devData';
import { setFaultInjector } from '../../devhost/cosmos/faults';
import { StoreError } from '../../lib/store/errors';
import { services } from '../../lib/services';

type Result = {
  associated: number;
  unchanged: number;
  unknownExternalIds: string[];
  unknownUserPrincipalNames: string[];
  conflictingUserPrincipalNames: string[];
};
type Gql = {
  data?: { associateBusinessIdentities: Result } | null;
  errors?: Array<{ message: string; path?: string[]; extensions?: { code?: string; externalIds?: string[] } }>;
};

const IMPORT = 'mutation($i: ImportBusinessIdentitiesInput!) { importBusinessIdentities(input: $i) { created } }';
const ASSOCIATE =
  'mutation($i: AssociateBusinessIdentitiesInput!) { associateBusinessIdentities(input: $i) { associated unchanged unknownExternalIds unknownUserPrincipalNames conflictingUserPrincipalNames } }';

/** Spec §3.4: each pair is processed separately and a failing pair does not stop the others. */
describe('association: each pair on its own', () => {
  let stack: TestStack;
  const gql = async (query: string, variables: Record<string, unknown>) =>
    call<Gql>(`${stack.base}/graphql`, {
      method: 'POST',
      token: await stack.token(DEV_CLIENTS.admin),
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables }),
    });
  /** Imports `n` identities S1..Sn into `source` and creates a directory user per identity; returns the user ids. */
  const prepare = async (source: string, n: number) => {
    const identities = Array.from({ length: n }, (_, i) => ({
      externalId: `${source}-${i + 1}`,
      affiliationType: 'EMPLOYMENT',
      firstName: 'F',
      lastName: 'L',
    }));
    expect((await gql(IMPORT, { i: { source, identities } })).body.errors).toBeUndefined();
    return identities.map((p, i) => ({
      externalId: p.externalId,
      upn: `${source.toLowerCase()}.${i + 1}@dev.example.com`,
      userId: stack.directory.createUser(DEV_TENANT_ID, `${source.toLowerCase()}.${i + 1}@dev.example.com`).id,
    }));
  };
  const claimOf = async (userId: string) => services().claims.get(DEV_TENANT_ID, userId);

  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterEach(() => setFaultInjector(undefined));
  afterAll(async () => stack?.stop());

  it('a malformed UPN or an empty or overlong externalId makes only that pair unknown; the others are associated', async () => {
    const [a, b, c] = await prepare('Shapes', 3);
    const res = await gql(ASSOCIATE, {
      i: {
        source: 'Shapes',
        associations: [
          { externalId: a!.externalId, userPrincipalName: a!.upn },
          { externalId: '', userPrincipalName: b!.upn },
          { externalId: 'x'.repeat(300), userPrincipalName: b!.upn },
          { externalId: b!.externalId, userPrincipalName: 'not-a-upn' },
          { externalId: c!.externalId, userPrincipalName: c!.upn },
        ],
      },
    });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data?.associateBusinessIdentities).toEqual({
      associated: 2,
      unchanged: 0,
      unknownExternalIds: ['', 'x'.repeat(300)],
      unknownUserPrincipalNames: ['not-a-upn'],
      conflictingUserPrincipalNames: [],
    });
    expect((await claimOf(a!.userId))?.identityPk).toMatch(/\|src:Shapes$/);
    expect((await claimOf(c!.userId))?.identityPk).toMatch(/\|src:Shapes$/);
    expect(await claimOf(b!.userId)).toBeUndefined();
  });

  it('a pair whose store writes keep failing is reported for sending again; the others are associated', async () => {
    const pairs = await prepare('Faulty', 4);
    const stuck = pairs[1]!;
    let tries = 0;
    // The claim of one user cannot be written, however often it is tried.
    setFaultInjector((op, container, target) => {
      if (container === 'links' && op === 'create' && target?.id === stuck.userId) {
        tries++;
        throw new StoreError('unavailable', 'injected: store unavailable', 50);
      }
    });
    const res = await gql(ASSOCIATE, {
      i: { source: 'Faulty', associations: pairs.map((p) => ({ externalId: p.externalId, userPrincipalName: p.upn })) },
    });
    setFaultInjector(undefined);
    expect(res.body.data?.associateBusinessIdentities).toEqual({
      associated: 3,
      unchanged: 0,
      unknownExternalIds: [],
      unknownUserPrincipalNames: [],
      conflictingUserPrincipalNames: [],
    });
    expect(res.body.errors).toHaveLength(1);
    expect(res.body.errors?.[0]?.extensions).toEqual({
      code: 'ASSOCIATION_INCOMPLETE',
      externalIds: [stuck.externalId],
    });
    expect(res.body.errors?.[0]?.path).toEqual(['associateBusinessIdentities']);
    expect(res.body.errors?.[0]?.message).not.toContain(stuck.externalId);
    expect(res.text).not.toContain(stuck.upn);
    expect(tries).toBeGreaterThan(1); // retried before it was given up
    expect(await claimOf(stuck.userId)).toBeUndefined();
    for (const p of pairs.filter((x) => x !== stuck))
      expect((await claimOf(p.userId))?.identityPk).toMatch(/\|src:Faulty$/);

    // Sent again once the store works: the pair is done, the others are unchanged.
    const again = await gql(ASSOCIATE, {
      i: { source: 'Faulty', associations: pairs.map((p) => ({ externalId: p.externalId, userPrincipalName: p.upn })) },
    });
    expect(again.body.errors).toBeUndefined();
    expect(again.body.data?.associateBusinessIdentities).toMatchObject({ associated: 1, unchanged: 3 });
  });

  it('a store failure that passes is retried: every pair is associated and no error is reported', async () => {
    const pairs = await prepare('Blip', 3);
    let failed = 0;
    setFaultInjector((op, container) => {
      if (container === 'identities' && op === 'replace' && failed++ === 0)
        throw new StoreError('unavailable', 'injected: unavailable once', 20);
    });
    const res = await gql(ASSOCIATE, {
      i: { source: 'Blip', associations: pairs.map((p) => ({ externalId: p.externalId, userPrincipalName: p.upn })) },
    });
    setFaultInjector(undefined);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data?.associateBusinessIdentities).toMatchObject({ associated: 3, unchanged: 0 });
    for (const p of pairs) expect((await claimOf(p.userId))?.identityPk).toMatch(/\|src:Blip$/);
  });

  it('a directory look-up that Graph throttles inside $batch is sent again: nothing is reported unknown', async () => {
    const pairs = await prepare('Throttled', 40); // three filter queries in one $batch
    stack.directory.throttleNextInBatch(2, 0);
    const res = await gql(ASSOCIATE, {
      i: {
        source: 'Throttled',
        associations: pairs.map((p) => ({ externalId: p.externalId, userPrincipalName: p.upn })),
      },
    });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data?.associateBusinessIdentities).toEqual({
      associated: 40,
      unchanged: 0,
      unknownExternalIds: [],
      unknownUserPrincipalNames: [],
      conflictingUserPrincipalNames: [],
    });
  });

  it('when the directory keeps throttling the look-up of one part of the list, only that part is sent again; the rest is associated and nothing is unknown', async () => {
    const pairs = await prepare('Parted', 301); // UPNs are looked up 300 to a $batch: the last one alone
    const last = pairs[300]!;
    stack.directory.throttleUpnInBatch(last.upn);
    const res = await gql(ASSOCIATE, {
      i: { source: 'Parted', associations: pairs.map((p) => ({ externalId: p.externalId, userPrincipalName: p.upn })) },
    });
    stack.directory.throttleUpnInBatch(undefined);
    expect(res.body.data?.associateBusinessIdentities).toEqual({
      associated: 300,
      unchanged: 0,
      unknownExternalIds: [],
      unknownUserPrincipalNames: [],
      conflictingUserPrincipalNames: [],
    });
    expect(res.body.errors?.map((e) => e.extensions)).toEqual([
      { code: 'ASSOCIATION_INCOMPLETE', externalIds: [last.externalId] },
    ]);
    expect(res.text).not.toContain(last.upn);
  });
});
