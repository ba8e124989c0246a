import { startTestStack, call, type TestStack } from '../support/stack';
import { DEV_CLIENTS, DEV_TENANT_ID } from '../../devhost/devData';
import { services } from '../../lib/services';
import { partitionKey } from '../../lib/identities/model';
import { customSourceKey } from '../../lib/imports/importer';
import { setFaultInjector } from '../../devhost/cosmos/faults';
import { StoreError } from '../../lib/store/errors';

type Gql = { data?: Record<string, Record<string, unknown>> | null; errors?: Array<{ message: string }> };

/**
 * On a store that throttles, every new link of an association carries the time it was stored, so a client
 * polling `meta.lastModified gt <its last poll>` finds it: a write sent again after throttling carries the
 * time it was sent again, not the time of the throttled try. Every identity write of the association is
 * throttled once (the store names a short wait); each stored link must carry a time after the moment its
 * first try was refused. A link resent unchanged would carry a time before that moment.
 */
describe('association on a throttling store', () => {
  let stack: TestStack;
  const gql = async (query: string, variables: Record<string, unknown>) =>
    call<Gql>(`${stack.base}/graphql`, {
      method: 'POST',
      token: await stack.token(DEV_CLIENTS.admin),
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables }),
    });

  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterEach(() => setFaultInjector(undefined));
  afterAll(async () => stack?.stop());

  it('a link written again after throttling carries the time of the write that stored it', async () => {
    const n = 250; // more than two batches of 100
    const identities = Array.from({ length: n }, (_, i) => ({
      externalId: `T-${i}`,
      affiliationType: 'EMPLOYMENT',
      firstName: 'F',
      lastName: 'L',
    }));
    expect(
      (
        await gql('mutation($i: ImportBusinessIdentitiesInput!) { importBusinessIdentities(input: $i) { created } }', {
          i: { source: 'Slow', identities },
        })
      ).body.errors,
    ).toBeUndefined();
    const pairs = identities.map((p, i) => {
      const upn = `slow.${i}@dev.example.com`;
      stack.directory.createUser(DEV_TENANT_ID, upn);
      return { externalId: p.externalId, userPrincipalName: upn };
    });
    const pk = partitionKey(DEV_TENANT_ID, customSourceKey('Slow'));
    // When the first try of each identity's write was refused.
    const refusedAt = new Map<string, string>();
    setFaultInjector((op, container, target) => {
      if (container !== 'identities' || op !== 'replace' || target?.pk !== pk || refusedAt.has(target.id)) return;
      refusedAt.set(target.id, new Date().toISOString());
      throw new StoreError('throttled', 'injected: throttled once', 20);
    });
    const res = await gql(
      'mutation($i: AssociateBusinessIdentitiesInput!) { associateBusinessIdentities(input: $i) { associated } }',
      { i: { source: 'Slow', associations: pairs } },
    );
    setFaultInjector(undefined);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data?.associateBusinessIdentities).toEqual({ associated: n });
    const rows = await services()
      .store.collection('identities')
      .queryAll<{ id: string; lastModified: string }>(
        {
          query: 'SELECT VALUE { id: c.id, lastModified: c.lastModified } FROM c WHERE c.pk = @pk',
          parameters: [{ name: '@pk', value: pk }],
        },
        { partitionKey: pk },
      );
    expect(rows).toHaveLength(n);
    expect(refusedAt.size).toBe(n); // every link was throttled once, so every link tells
    const stampedBeforeStored = rows.filter((r) => !(r.lastModified > (refusedAt.get(r.id) ?? '')));
    expect(stampedBeforeStored).toEqual([]);
  });
});
