/**
 * Fairness without priority-based execution: on a serverless account (the local engine's default mode, which
 * ignores request priority as Azure does there) tenant B's import is paced by B's request-unit budget, so
 * tenant A's SCIM requests at the same time are never throttled and never wait for B's work.
 */
import { startTestStack, call, type TestStack } from '../support/stack';
import { scim, userBody } from '../support/scim';
import { DEV_CLIENTS, DEV_TENANT_ID, UNREGISTERED_TENANT_ID } from '../../devhost/devData';
import { services } from '../../lib/services';
import { diffCounters, storeCounters } from '../../lib/store/metrics';

const B_RU_PER_SECOND = 1_000;
const IDENTITIES = 1_200;

describe('bulk work paced per tenant in serverless mode', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({
      // A serverless container's 5,000 RU/s; the mode is named although it is the default.
      cosmosRuPerSecond: 5_000,
      cosmosMode: 'serverless',
      env: {
        BULK_REQUEST_UNITS_PER_SECOND_PER_TENANT: String(B_RU_PER_SECOND),
        BULK_REQUEST_UNITS_PER_SECOND: '1500',
      },
    });
    await services().tenants.register(UNREGISTERED_TENANT_ID);
  });
  afterAll(async () => {
    await services().tenants.remove(UNREGISTERED_TENANT_ID);
    await stack?.stop();
  });

  it("tenant B's import spends at most B's budget and waits for it; tenant A's SCIM requests are neither throttled nor paced", async () => {
    expect(stack.cosmosMode).toBe('serverless');
    const a = scim(stack, await stack.token(DEV_CLIENTS.scim));
    const created = await a.create(userBody());
    expect(created.status).toBe(201);

    const identities = Array.from({ length: IDENTITIES }, (_, i) => ({
      externalId: `paced-${i}`,
      affiliationType: 'EMPLOYMENT',
      firstName: 'First',
      lastName: `Last${i}`,
    }));
    const engineBefore = stack.cosmosRequestUnits();
    const countersBefore = storeCounters();
    const started = performance.now();
    let done = false;
    const importing = call<{ data?: { importBusinessIdentities: { created: number } }; errors?: unknown[] }>(
      `${stack.base}/graphql`,
      {
        method: 'POST',
        token: await stack.token(DEV_CLIENTS.otherAdmin),
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          query: 'mutation($i: ImportBusinessIdentitiesInput!) { importBusinessIdentities(input: $i) { created } }',
          variables: { i: { source: 'Paced', identities } },
        }),
      },
    ).finally(() => (done = true));
    const statuses: number[] = [];
    // Tenant A reads and writes its user while B imports, within its integration's rate limit.
    for (let i = 0; !done; i++) {
      const res =
        i % 2 === 0
          ? await a.get(created.body.id)
          : await a.patch(created.body.id, {
              schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
              Operations: [{ op: 'replace', path: 'name.familyName', value: `F${i}` }],
            });
      statuses.push(res.status);
      await new Promise((r) => setTimeout(r, 40));
    }
    const imported = await importing;
    const seconds = (performance.now() - started) / 1000;
    expect(imported.body.errors).toBeUndefined();
    expect(imported.body.data?.importBusinessIdentities.created).toBe(IDENTITIES);

    const engine = stack.cosmosRequestUnits();
    const ops = diffCounters(storeCounters(), countersBefore);
    // B's work waited for its budget, and spent at most its rate over the import (plus the half-second
    // burst and one costly request in hand); the store charged what the pacer was told.
    expect(ops.pacedWaits).toBeGreaterThan(0);
    const lowCharged = engine.lowCharged - engineBefore.lowCharged;
    expect(lowCharged).toBeGreaterThan(5_000);
    expect(lowCharged).toBeLessThanOrEqual(B_RU_PER_SECOND * seconds + B_RU_PER_SECOND / 2 + 1_500);
    expect(ops.pacedRequestCharge).toBeCloseTo(lowCharged, -1);

    // A: every request answered, none of its store requests throttled, none of them paced.
    expect(statuses.length).toBeGreaterThan(5);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    const highThrottled = engine.throttled - engine.lowThrottled - (engineBefore.throttled - engineBefore.lowThrottled);
    expect(highThrottled).toBe(0);
    const paced = services().store.pacer?.stats() ?? {};
    expect(Object.keys(paced)).toContain(UNREGISTERED_TENANT_ID);
    expect(Object.keys(paced)).not.toContain(DEV_TENANT_ID);
  });
});
