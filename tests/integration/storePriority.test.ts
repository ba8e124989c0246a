import { startTestStack, call, type TestStack } from '../support/stack';
import { scim, userBody } from '../support/scim';
import { DEV_CLIENTS, UNREGISTERED_TENANT_ID } from '../../devhost/devData';
import { services } from '../../lib/services';

const IDENTITIES = 'business-identities/identities';

describe('store priority: one tenant\u2019s bulk work runs at low priority, another tenant\u2019s SCIM at high', () => {
  let stack: TestStack;
  beforeAll(async () => {
    // A provisioned account: priority-based execution is honoured (a serverless one ignores it).
    stack = await startTestStack({ cosmosRuPerSecond: 400, cosmosMode: 'provisioned' });
    await services().tenants.register(UNREGISTERED_TENANT_ID);
  });
  afterAll(async () => {
    await services().tenants.remove(UNREGISTERED_TENANT_ID);
    await stack?.stop();
  });

  it('SCIM requests carry no priority (high); an import and its run records go at low priority and are throttled first', async () => {
    const a = scim(stack, await stack.token(DEV_CLIENTS.scim));
    const created = await a.create(userBody());
    expect(created.status).toBe(201);
    const before = stack.cosmosRequestUnits();
    for (let i = 0; i < 5; i++) expect((await a.get(created.body.id)).status).toBe(200);
    expect(stack.cosmosRequestUnits().lowRequests).toBe(before.lowRequests);

    // Tenant B imports 1,500 identities while tenant A reads its user.
    const bToken = await stack.token(DEV_CLIENTS.otherAdmin);
    const identities = Array.from({ length: 1500 }, (_, i) => ({
      externalId: `prio-${i}`,
      affiliationType: 'EMPLOYMENT',
      firstName: 'First',
      lastName: 'Last',
    }));
    let done = false;
    const importing = call<{ data?: { importBusinessIdentities: { created: number } }; errors?: unknown[] }>(
      `${stack.base}/graphql`,
      {
        method: 'POST',
        token: bToken,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          query: 'mutation($i: ImportBusinessIdentitiesInput!) { importBusinessIdentities(input: $i) { created } }',
          variables: { i: { source: 'Priority', identities } },
        }),
      },
    ).finally(() => (done = true));
    const statuses: number[] = [];
    // Within the integration's rate limit (50 a second), as a SCIM client would read.
    while (!done) {
      statuses.push((await a.get(created.body.id)).status);
      await new Promise((r) => setTimeout(r, 40));
    }
    const imported = await importing;
    expect(imported.body.data?.importBusinessIdentities.created).toBe(1500);
    expect(statuses.every((s) => s === 200)).toBe(true);

    const usage = stack.cosmosRequestUnits().byContainer[IDENTITIES];
    const beforeIdentities = before.byContainer[IDENTITIES];
    expect((usage?.lowRequests ?? 0) - (beforeIdentities?.lowRequests ?? 0)).toBeGreaterThan(0);
    expect(usage?.lowThrottled ?? 0).toBeGreaterThan(0);
  });
});
