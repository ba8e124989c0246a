import { startTestStack, call, type TestStack } from '../support/stack';
import { DEV_CLIENTS, DEV_TENANT_ID } from '../../devhost/devData';
import { setFaultInjector } from '../../devhost/cosmos/faults';
import { StoreError } from '../../lib/store/errors';
import { services } from '../../lib/services';
import type { Collection, StoredDoc } from '../../lib/store/store';
import { storeCounters, diffCounters } from '../../lib/store/metrics';

type Problem = { field: string; problem: string };
type Gql<T> = {
  data?: T | null;
  errors?: Array<{ message: string; extensions?: { code?: string; problems?: Problem[] } }>;
};
type Counts = { created: number; updated: number; deleted: number; unchanged: number };
type Identity = {
  id: string;
  externalId: string;
  firstName: string;
  directoryLinkStatus: string;
  directoryLinkedUserId: string | null;
  personalNumberTypes?: string[];
};

const IMPORT =
  'mutation($i: ImportBusinessIdentitiesInput!) { importBusinessIdentities(input: $i) { created updated deleted unchanged } }';
const ASSOCIATE =
  'mutation($i: AssociateBusinessIdentitiesInput!) { associateBusinessIdentities(input: $i) { associated unchanged unknownExternalIds unknownUserPrincipalNames conflictingUserPrincipalNames } }';
const LIST =
  'query($s: String!, $after: String) { businessIdentities(source: $s, first: 500, after: $after) { nodes { id externalId firstName directoryLinkStatus directoryLinkedUserId personalNumberTypes } endCursor hasNextPage } }';

function person(n: number, extra: Record<string, unknown> = {}) {
  return { externalId: `P${n}`, affiliationType: 'EMPLOYMENT', firstName: `First${n}`, lastName: `Last${n}`, ...extra };
}

describe('custom integration: import and association', () => {
  let stack: TestStack;
  let token: string;
  const gql = async <T>(query: string, variables: Record<string, unknown>) =>
    call<Gql<T>>(`${stack.base}/graphql`, {
      method: 'POST',
      token,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables }),
    });
  const importSet = (source: string, identities: unknown[]) =>
    gql<{ importBusinessIdentities: Counts }>(IMPORT, { i: { source, identities } });
  const list = async (source: string): Promise<Identity[]> => {
    const out: Identity[] = [];
    let after: string | null = null;
    for (;;) {
      const res: Awaited<
        ReturnType<
          typeof gql<{ businessIdentities: { nodes: Identity[]; endCursor: string | null; hasNextPage: boolean } }>
        >
      > = await gql(LIST, { s: source, after });
      const page = res.body.data!.businessIdentities;
      out.push(...page.nodes);
      if (!page.hasNextPage) return out;
      after = page.endCursor;
    }
  };

  beforeAll(async () => {
    stack = await startTestStack();
    token = await stack.token(DEV_CLIENTS.admin);
  });
  afterAll(async () => {
    setFaultInjector(undefined);
    await stack?.stop();
  });

  it('refuses a custom source named like a SCIM integration id (in any case), which the admin queries could not address', async () => {
    const integrationId = (await services().integrations.findByClientId(DEV_TENANT_ID, DEV_CLIENTS.scim.clientId))!.id;
    for (const source of [integrationId, integrationId.toUpperCase()]) {
      const imported = await importSet(source, [person(901)]);
      expect(imported.body.errors?.[0]?.extensions).toMatchObject({
        code: 'BAD_USER_INPUT',
        problems: [{ field: 'input.source' }],
      });
      expect(imported.text).not.toContain(integrationId);
      expect(imported.text.toLowerCase()).not.toContain(integrationId);
      const associated = await gql(ASSOCIATE, {
        i: { source, associations: [{ externalId: 'P901', userPrincipalName: 'alice@dev.example.com' }] },
      });
      expect(associated.body.errors?.[0]?.extensions).toMatchObject({
        code: 'BAD_USER_INPUT',
        problems: [{ field: 'input.source' }],
      });
    }
    // A GUID that is no integration's id stays a custom source name and is addressable.
    const other = '0b0b0b0b-0000-4000-8000-00000000abcd';
    expect((await importSet(other, [person(902)])).body.data?.importBusinessIdentities).toMatchObject({ created: 1 });
    expect((await list(other)).map((i) => i.externalId)).toEqual(['P902']);
  });

  it('a $batch sub-request that Graph throttles is sent again, never reported as an unknown user', async () => {
    await importSet('BatchRetry', [person(951)]);
    stack.directory.throttleNextInBatch(2, 0);
    const res = await gql<{ associateBusinessIdentities: { associated: number; unknownUserPrincipalNames: string[] } }>(
      ASSOCIATE,
      {
        i: { source: 'BatchRetry', associations: [{ externalId: 'P951', userPrincipalName: 'carol@dev.example.com' }] },
      },
    );
    expect(res.body.data?.associateBusinessIdentities).toMatchObject({ associated: 1, unknownUserPrincipalNames: [] });
  });

  it('counts created, unchanged, updated and deleted, and replaces lists', async () => {
    const first = await importSet('HR', [
      person(1, {
        personalNumbers: [{ type: 'DK_CPR', value: '010190-1234' }],
        identityDocumentReferences: [{ type: 'PASSPORT', issuingCountry: 'dk', documentNumber: 'P1' }],
      }),
      person(2),
      person(3),
    ]);
    expect(first.body.data?.importBusinessIdentities).toEqual({ created: 3, updated: 0, deleted: 0, unchanged: 0 });
    const again = await importSet('HR', [
      person(1, {
        personalNumbers: [{ type: 'DK_CPR', value: '0101901234' }],
        identityDocumentReferences: [{ type: 'PASSPORT', issuingCountry: 'DK', documentNumber: 'P1' }],
      }),
      person(2),
      person(3),
    ]);
    expect(again.body.data?.importBusinessIdentities).toEqual({ created: 0, updated: 0, deleted: 0, unchanged: 3 });
    const changed = await importSet('HR', [person(1), person(2, { firstName: 'Renamed' }), person(4)]);
    expect(changed.body.data?.importBusinessIdentities).toEqual({ created: 1, updated: 2, deleted: 1, unchanged: 0 });
    const stored = await list('HR');
    expect(stored.map((i) => i.externalId).sort()).toEqual(['P1', 'P2', 'P4']);
    expect(stored.find((i) => i.externalId === 'P1')?.personalNumberTypes).toEqual([]);
    expect(stored.find((i) => i.externalId === 'P2')?.firstName).toBe('Renamed');
  });

  it.each([
    ['an empty set', [], 'input.identities'],
    ['a duplicate externalId', [person(1), person(1)], 'identities[1].externalId'],
    ['an empty first name', [person(1), person(2, { firstName: '' })], 'identities[1].firstName'],
    ['an empty last name', [person(1, { lastName: '  ' })], 'identities[0].lastName'],
    [
      'an invalid CPR number',
      [person(1), person(2), person(3, { personalNumbers: [{ type: 'DK_CPR', value: '3213991234' }] })],
      'identities[2].personalNumbers[0].value',
    ],
    ['an invalid country code', [person(1, { nationality: 'XQ' })], 'identities[0].nationality'],
    [
      'a document without number',
      [person(1, { identityDocumentReferences: [{ type: 'PASSPORT', issuingCountry: 'DK' }] })],
      'identities[0].identityDocumentReferences[0].documentNumber',
    ],
    ['an invalid birth date', [person(1, { birthDate: '2023-02-29' })], 'identities[0].birthDate'],
  ])(
    'rejects %s as a whole with BAD_USER_INPUT naming the field, and changes nothing',
    async (_what, identities, field) => {
      const before = await list('HR');
      const res = await importSet('HR', identities);
      expect(res.status).toBe(200);
      expect(res.body.data).toBeNull();
      expect(res.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
      expect(res.body.errors?.[0]?.extensions?.problems?.map((p) => p.field)).toContain(field);
      for (const secret of ['3213991234', 'XQ', '2023-02-29']) expect(res.text).not.toContain(secret);
      expect(await list('HR')).toEqual(before);
    },
  );

  it.each([['Manual'], ['MANUAL'], ['']])('rejects the source name %p', async (source) => {
    const res = await importSet(source, [person(1)]);
    expect(res.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });

  it('a deleted identity cannot come back: a later import creates a new id; other sources are untouched', async () => {
    await importSet('Students', [person(10), person(11)]);
    const other = await list('HR');
    const before = (await list('Students')).find((i) => i.externalId === 'P11')!;
    expect((await importSet('Students', [person(10)])).body.data?.importBusinessIdentities.deleted).toBe(1);
    expect((await importSet('Students', [person(10), person(11)])).body.data?.importBusinessIdentities.created).toBe(1);
    const after = (await list('Students')).find((i) => i.externalId === 'P11')!;
    expect(after.id).not.toBe(before.id);
    expect(await list('HR')).toEqual(other);
  });

  it('associates per pair: linked, unchanged, unknown externalId, unknown UPN, conflict; never removes links', async () => {
    await importSet('Assoc', [person(21), person(22), person(23)]);
    const alice = stack.directory.findByUpn(DEV_TENANT_ID, 'alice@dev.example.com')!;
    const bob = stack.directory.findByUpn(DEV_TENANT_ID, 'bob@dev.example.com')!;
    const first = await gql<{ associateBusinessIdentities: Record<string, unknown> }>(ASSOCIATE, {
      i: {
        source: 'Assoc',
        associations: [
          { externalId: 'P21', userPrincipalName: 'ALICE@dev.example.com' },
          { externalId: 'P99', userPrincipalName: 'bob@dev.example.com' },
          { externalId: 'P22', userPrincipalName: 'nobody@dev.example.com' },
        ],
      },
    });
    expect(first.body.data?.associateBusinessIdentities).toEqual({
      associated: 1,
      unchanged: 0,
      unknownExternalIds: ['P99'],
      unknownUserPrincipalNames: ['nobody@dev.example.com'],
      conflictingUserPrincipalNames: [],
    });

    const second = await gql<{ associateBusinessIdentities: Record<string, unknown> }>(ASSOCIATE, {
      i: {
        source: 'Assoc',
        associations: [
          { externalId: 'P21', userPrincipalName: 'alice@dev.example.com' },
          { externalId: 'P23', userPrincipalName: 'alice@dev.example.com' },
        ],
      },
    });
    expect(second.body.data?.associateBusinessIdentities).toMatchObject({
      associated: 0,
      unchanged: 1,
      conflictingUserPrincipalNames: ['alice@dev.example.com'],
    });

    const moved = await gql<{ associateBusinessIdentities: Record<string, unknown> }>(ASSOCIATE, {
      i: { source: 'Assoc', associations: [{ externalId: 'P21', userPrincipalName: 'bob@dev.example.com' }] },
    });
    expect(moved.body.data?.associateBusinessIdentities).toMatchObject({ associated: 1 });
    const byExternal = Object.fromEntries((await list('Assoc')).map((i) => [i.externalId, i]));
    expect(byExternal.P21).toMatchObject({ directoryLinkStatus: 'LINKED', directoryLinkedUserId: bob.id });
    // alice was released by the move: P23 can take her now
    const retry = await gql<{ associateBusinessIdentities: Record<string, unknown> }>(ASSOCIATE, {
      i: { source: 'Assoc', associations: [{ externalId: 'P23', userPrincipalName: 'alice@dev.example.com' }] },
    });
    expect(retry.body.data?.associateBusinessIdentities).toMatchObject({ associated: 1 });
    expect((await list('Assoc')).find((i) => i.externalId === 'P23')?.directoryLinkedUserId).toBe(alice.id);

    // The import keeps links of remaining identities, and releases the link of a deleted one.
    await importSet('Assoc', [person(21), person(22)]);
    const kept = Object.fromEntries((await list('Assoc')).map((i) => [i.externalId, i]));
    expect(kept.P21?.directoryLinkedUserId).toBe(bob.id);
    const free = await gql<{ associateBusinessIdentities: Record<string, unknown> }>(ASSOCIATE, {
      i: { source: 'Assoc', associations: [{ externalId: 'P22', userPrincipalName: 'alice@dev.example.com' }] },
    });
    expect(free.body.data?.associateBusinessIdentities).toMatchObject({ associated: 1 });
  });

  it('administrators create Manual identities and list them', async () => {
    const created = await gql<{ createBusinessIdentity: { businessIdentity: Identity & { firstName: string } } }>(
      'mutation($i: ImportBusinessIdentityInput!) { createBusinessIdentity(input: $i) { businessIdentity { id externalId firstName directoryLinkStatus directoryLinkedUserId } } }',
      { i: person(77) },
    );
    expect(created.body.data?.createBusinessIdentity.businessIdentity).toMatchObject({
      externalId: 'P77',
      firstName: 'First77',
      directoryLinkStatus: 'NOT_ASSERTED',
    });
    const again = await gql(
      'mutation($i: ImportBusinessIdentityInput!) { createBusinessIdentity(input: $i) { businessIdentity { id } } }',
      { i: person(77) },
    );
    expect(again.body.errors?.[0]?.extensions?.code).toBe('BUSINESS_IDENTITY_EXISTS');
    expect((await list('manual')).map((i) => i.externalId)).toEqual(['P77']);
    expect((await importSet('Manual', [person(1)])).body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });

  it('rejects an association list that breaks a list rule (empty, an externalId twice) as a whole', async () => {
    for (const associations of [
      [],
      [
        { externalId: 'A', userPrincipalName: 'a@x.example' },
        { externalId: 'A', userPrincipalName: 'b@x.example' },
      ],
    ]) {
      const res = await gql(ASSOCIATE, { i: { source: 'Assoc', associations } });
      expect(res.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    }
  });

  it('refuses a second import of the same source while one runs (IMPORT_IN_PROGRESS)', async () => {
    const big = Array.from({ length: 2000 }, (_, i) => person(1000 + i));
    const results = await Promise.all([importSet('Lease', big), importSet('Lease', big)]);
    const codes = results.map((r) => r.body.errors?.[0]?.extensions?.code ?? 'ok').sort();
    expect(codes).toEqual(['IMPORT_IN_PROGRESS', 'ok']);
    expect((await importSet('Lease', big)).body.data?.importBusinessIdentities).toMatchObject({ unchanged: 2000 });
  });

  it('a store failure in the middle of an import leaves no corrupt state; the rerun converges with true counts', async () => {
    const set = Array.from({ length: 300 }, (_, i) => person(5000 + i));
    let writes = 0;
    setFaultInjector((op, container) => {
      if (container === 'identities' && (op === 'create' || op === 'replace') && ++writes > 120)
        throw new StoreError('unavailable', 'injected fault', 1000);
    });
    const failed = await importSet('Faulty', set);
    setFaultInjector(undefined);
    expect(failed.body.errors?.[0]?.extensions?.code).toBe('SERVICE_BUSY');
    const partial = (await list('Faulty')).length;
    expect(partial).toBeGreaterThanOrEqual(100);
    expect(partial).toBeLessThan(300);

    const rerun = await importSet('Faulty', set);
    expect(rerun.body.data?.importBusinessIdentities).toEqual({
      created: 300 - partial,
      updated: 0,
      deleted: 0,
      unchanged: partial,
    });
    const final = await list('Faulty');
    expect(final.map((i) => i.externalId).sort()).toEqual(set.map((p) => p.externalId).sort());
    expect((await importSet('Faulty', set)).body.data?.importBusinessIdentities).toEqual({
      created: 0,
      updated: 0,
      deleted: 0,
      unchanged: 300,
    });
  });

  it('an identity changed by another writer while the import updates it is written again on what is stored', async () => {
    await importSet('Contended', [person(6001), person(6002)]);
    let lost = 0;
    setFaultInjector((op, container) => {
      if (container === 'identities' && op === 'replace' && lost++ === 0)
        throw new StoreError('preconditionFailed', 'injected: changed by another writer');
    });
    const updated = await importSet('Contended', [person(6001, { firstName: 'Changed' }), person(6002)]);
    setFaultInjector(undefined);
    expect(updated.body.data?.importBusinessIdentities).toEqual({ created: 0, updated: 1, deleted: 0, unchanged: 1 });
    expect(lost).toBe(2);
    expect((await list('Contended')).find((i) => i.externalId === 'P6001')?.firstName).toBe('Changed');

    setFaultInjector((op, container) => {
      if (container === 'identities' && op === 'replace')
        throw new StoreError('preconditionFailed', 'injected: changed by another writer');
    });
    const refused = await importSet('Contended', [person(6001, { firstName: 'Again' }), person(6002)]);
    setFaultInjector(undefined);
    expect(refused.body.errors?.[0]?.extensions?.code).toBe('CONCURRENT_CHANGE');
    expect(
      (await importSet('Contended', [person(6001, { firstName: 'Again' }), person(6002)])).body.data
        ?.importBusinessIdentities,
    ).toEqual({ created: 0, updated: 1, deleted: 0, unchanged: 1 });
  });

  it('a failure deleting an identity that left the set keeps its link and claim; the rerun deletes both', async () => {
    await importSet('Leaving', [person(6101), person(6102)]);
    stack.directory.createUser(DEV_TENANT_ID, 'leaving@dev.example.com');
    const user = stack.directory.findByUpn(DEV_TENANT_ID, 'leaving@dev.example.com')!;
    const associated = await gql<{ associateBusinessIdentities: Record<string, unknown> }>(ASSOCIATE, {
      i: { source: 'Leaving', associations: [{ externalId: 'P6102', userPrincipalName: 'leaving@dev.example.com' }] },
    });
    expect(associated.body.data?.associateBusinessIdentities).toMatchObject({ associated: 1 });

    setFaultInjector((op, container) => {
      if (container === 'identities' && op === 'delete') throw new StoreError('unavailable', 'injected fault', 1000);
    });
    const failed = await importSet('Leaving', [person(6101)]);
    setFaultInjector(undefined);
    expect(failed.body.errors?.[0]?.extensions?.code).toBe('SERVICE_BUSY');
    const still = (await list('Leaving')).find((i) => i.externalId === 'P6102');
    expect(still?.directoryLinkedUserId).toBe(user.id);
    expect((await services().claims.get(DEV_TENANT_ID, user.id))?.identityId).toBe(still?.id);

    expect((await importSet('Leaving', [person(6101)])).body.data?.importBusinessIdentities).toEqual({
      created: 0,
      updated: 0,
      deleted: 1,
      unchanged: 1,
    });
    expect(await services().claims.get(DEV_TENANT_ID, user.id)).toBeUndefined();
  });

  describe("store: transactional batch creates (the import's create path)", () => {
    type Note = StoredDoc & { text: string };
    const pk = 'batch-test';
    const audit = (): Collection<Note> => services().store.collection<Note>('audit');

    it('creates more than one batch worth of items, one request per 100', async () => {
      const docs = Array.from({ length: 230 }, (_, i) => ({ id: `a${i}`, pk, text: `note ${i}` }));
      const before = storeCounters();
      const outcomes = await audit().batchCreate(pk, docs);
      expect(outcomes).toEqual(docs.map(() => 'created'));
      expect(diffCounters(storeCounters(), before).writes).toBe(230);
      const stored = await audit().read(pk, 'a229');
      expect(stored?.text).toBe('note 229');
    });

    it('reports a conflict for an existing id and does not report the rest of its batch as created', async () => {
      await audit().create({ id: 'b1', pk, text: 'already there' });
      const outcomes = await audit().batchCreate(pk, [
        { id: 'b0', pk, text: 'zero' },
        { id: 'b1', pk, text: 'again' },
        { id: 'b2', pk, text: 'two' },
      ]);
      expect(outcomes[1]).toBe('conflict');
      expect(outcomes[2]).toBeInstanceOf(StoreError);
      expect((await audit().read(pk, 'b1'))?.text).toBe('already there');
      expect(await audit().read(pk, 'b2')).toBeUndefined();
    });

    it('a store failure of one item fails its whole batch: each item reports a failure, none is written', async () => {
      setFaultInjector((op, container, target) => {
        if (container === 'audit' && op === 'create' && target?.id === 'c1')
          throw new StoreError('unavailable', 'injected', 500);
      });
      try {
        const outcomes = await audit().batchCreate(
          pk,
          [0, 1, 2].map((i) => ({ id: `c${i}`, pk, text: `c${i}` })),
        );
        expect(outcomes[1]).toMatchObject({ failure: 'unavailable' });
        expect(outcomes[0]).toBeInstanceOf(StoreError);
        expect(outcomes[2]).toBeInstanceOf(StoreError);
        for (const id of ['c0', 'c1', 'c2']) expect(await audit().read(pk, id)).toBeUndefined();
      } finally {
        setFaultInjector(undefined);
      }
    });
  });
});
