import { startTestStack, call, type TestStack } from '../support/stack';
import { DEV_CLIENTS, DEV_TENANT_ID } from '../../lib/devhost/devData';
import { services } from '../../lib/services';
import { partitionKey } from '../../lib/identities/model';
import { customSourceKey } from '../../lib/imports/importer';

type Gql = { data?: Record<string, Record<string, unknown>> | null; errors?: Array<{ message: string }> };

/**
 * On a store that throttles (the local engine with a request-unit budget), a client polling
 * `meta.lastModified gt <its last poll less a second>` while an association runs finds every new link:
 * no link becomes visible more than a second after the time it carries (a write sent again after
 * throttling carries the time it was sent again).
 */
describe('association on a throttling store', () => {
  let stack: TestStack;
  const gql = async (query: string, variables: Record<string, unknown>) =>
    call<Gql>(`${stack.base}/graphql`, { method: 'POST', token: await stack.token(DEV_CLIENTS.admin), headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) });

  beforeAll(async () => {
    stack = await startTestStack({ cosmosRuPerSecond: 600 });
  });
  afterAll(async () => stack?.stop());

  it('every new link carries a time no more than a second before a poll could first see it', async () => {
    const n = 300;
    const identities = Array.from({ length: n }, (_, i) => ({ externalId: `T-${i}`, affiliationType: 'EMPLOYMENT', firstName: 'F', lastName: 'L' }));
    expect((await gql('mutation($i: ImportBusinessIdentitiesInput!) { importBusinessIdentities(input: $i) { created } }', { i: { source: 'Slow', identities } })).body.errors).toBeUndefined();
    const pairs = identities.map((p, i) => {
      const upn = `slow.${i}@dev.example.com`;
      stack.directory.createUser(DEV_TENANT_ID, upn);
      return { externalId: p.externalId, userPrincipalName: upn };
    });
    await new Promise((r) => setTimeout(r, 2000)); // the import's debt to the budget is paid off
    const pk = partitionKey(DEV_TENANT_ID, customSourceKey('Slow'));
    const seenUnlinkedAt = new Map<string, number>(); // the last poll that saw the identity not linked
    const late: Array<{ lastModified: string; lastUnlinkedPoll: number }> = [];
    let done = false;
    const poll = async () => {
      while (!done) {
        const at = Date.now();
        const rows = await services()
          .store.collection('identities')
          .queryAll<{ id: string; status: string; lastModified: string }>({ query: 'SELECT c.id, c.link.status, c.lastModified FROM c WHERE c.pk = @pk', parameters: [{ name: '@pk', value: pk }] }, { partitionKey: pk })
          .catch(() => undefined);
        for (const r of rows ?? []) {
          if (r.status !== 'linked') seenUnlinkedAt.set(r.id, at);
          else if (seenUnlinkedAt.has(r.id)) {
            const before = seenUnlinkedAt.get(r.id)!;
            if (Date.parse(r.lastModified) < before - 1000) late.push({ lastModified: r.lastModified, lastUnlinkedPoll: before });
            seenUnlinkedAt.delete(r.id);
          }
        }
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    const poller = poll();
    const res = await gql('mutation($i: AssociateBusinessIdentitiesInput!) { associateBusinessIdentities(input: $i) { associated } }', { i: { source: 'Slow', associations: pairs } });
    await new Promise((r) => setTimeout(r, 1500));
    done = true;
    await poller;
    expect(res.body.errors).toBeUndefined();
    expect(late).toEqual([]);
  }, 120_000);
});
