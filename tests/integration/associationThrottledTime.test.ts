import { startTestStack, call, type TestStack } from '../support/stack';
import { DEV_CLIENTS, DEV_TENANT_ID } from '../../devhost/devData';
import { services } from '../../lib/services';
import { partitionKey } from '../../lib/identities/model';
import { customSourceKey } from '../../lib/imports/importer';

type Gql = { data?: Record<string, Record<string, unknown>> | null; errors?: Array<{ message: string }> };

/**
 * On a store that throttles (the local engine with a request-unit budget), every new link of an
 * association becomes visible within a second of the time it carries, so a client polling
 * `meta.lastModified gt <its last poll less a second>` finds it: a write sent again after throttling
 * carries the time it was sent again. The time of visibility is the engine's `_ts` (whole seconds),
 * so a link stored at least two seconds after its `lastModified` shows as `_ts` ≥ lastModified + 2 s.
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
    stack = await startTestStack({ cosmosRuPerSecond: 300 });
  });
  afterAll(async () => stack?.stop());

  it('no link is stored two seconds or more after the lastModified it carries', async () => {
    const n = 300;
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
    const res = await gql(
      'mutation($i: AssociateBusinessIdentitiesInput!) { associateBusinessIdentities(input: $i) { associated } }',
      { i: { source: 'Slow', associations: pairs } },
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data?.associateBusinessIdentities).toEqual({ associated: n });
    const pk = partitionKey(DEV_TENANT_ID, customSourceKey('Slow'));
    const rows = await services()
      .store.collection('identities')
      .queryAll<{ ts: number; lastModified: string }>(
        {
          query: 'SELECT VALUE { ts: c._ts, lastModified: c.lastModified } FROM c WHERE c.pk = @pk',
          parameters: [{ name: '@pk', value: pk }],
        },
        { partitionKey: pk },
      );
    expect(rows).toHaveLength(n);
    const storedLate = rows.filter((r) => r.ts * 1000 - Date.parse(r.lastModified) >= 2000);
    expect(storedLate).toEqual([]);
  }, 120_000);
});
