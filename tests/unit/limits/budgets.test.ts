import { loadSettings } from '../../../lib/config/settings';
import { budgets, holds, limiters } from '../../../lib/limits/budgets';
import type { ShareSource } from '../../../lib/limits/fleetShares';

const base = { PUBLIC_BASE_URL: 'https://svc.example.com/', COSMOS_ENDPOINT: 'https://acct.documents.azure.com:443/' };

describe('the table of budgets', () => {
  it('sizes each budget from its setting', () => {
    const b = budgets(
      loadSettings({
        ...base,
        SCIM_RATE_LIMIT_PER_SECOND: '7',
        SCIM_TENANT_RATE_LIMIT_PER_SECOND: '11',
        MAX_REQUESTS_IN_FLIGHT: '3',
        SCIM_TENANT_MAX_REQUESTS_IN_FLIGHT: '5',
        GRAPHQL_REQUESTS_PER_MINUTE: '120',
      }),
    );
    expect(b.scimIntegrationRate).toMatchObject({ kind: 'rate', scope: 'integration', perSecond: 7, burst: 14 });
    expect(b.scimTenantRate).toMatchObject({ kind: 'rate', scope: 'tenant', perSecond: 11, burst: 22 });
    expect(b.scimIntegrationInFlight).toMatchObject({ kind: 'inFlight', scope: 'instance', max: 3 });
    expect(b.scimTenantInFlight).toMatchObject({ kind: 'inFlight', scope: 'instance', max: 5 });
    expect(b.graphqlTenantRate).toMatchObject({ perSecond: 2, burst: 30 });
    expect(b.graphqlTenantInFlight.max).toBe(3);
  });

  it('names every budget once, each with what it counts', () => {
    const b = budgets(loadSettings(base));
    for (const [name, budget] of Object.entries(b)) {
      expect([name, budget.counts.length > 0]).toEqual([name, true]);
    }
    expect(Object.keys(b).sort()).toEqual(
      [
        'authenticationRefusals',
        'bulkItems',
        'bulkServiceRequestUnits',
        'bulkTenantRequestUnits',
        'refusalRecords',
        'busyRefusals',
        'graphqlBodyBytes',
        'graphqlTenantInFlight',
        'graphqlTenantRate',
        'scimIntegrationInFlight',
        'scimIntegrationRate',
        'scimTenantInFlight',
        'scimTenantRate',
      ].sort(),
    );
  });

  it('says for every row whether the fleet shares it or each instance keeps its own', () => {
    const b = budgets(loadSettings(base));
    const byHolder = Object.fromEntries(Object.entries(b).map(([name, budget]) => [name, holds(budget.scope)]));
    expect(byHolder).toEqual({
      scimIntegrationRate: 'fleet',
      scimTenantRate: 'fleet',
      graphqlTenantRate: 'fleet',
      bulkItems: 'fleet',
      busyRefusals: 'fleet',
      refusalRecords: 'fleet',
      bulkTenantRequestUnits: 'fleet',
      bulkServiceRequestUnits: 'fleet',
      // One process's memory, requests in flight and CPU.
      scimIntegrationInFlight: 'instance',
      scimTenantInFlight: 'instance',
      graphqlTenantInFlight: 'instance',
      graphqlBodyBytes: 'instance',
      authenticationRefusals: 'instance',
    });
    expect(b.bulkServiceRequestUnits.scope).toBe('service');
  });

  it("admits a fleet row's limiter against this instance's share, an instance row's against its whole bound", () => {
    const asked: string[] = [];
    const third: ShareSource = {
      fraction: (budget, key) => {
        asked.push(`${budget} ${key}`);
        return 1 / 3;
      },
    };
    const b = budgets(loadSettings({ ...base, SCIM_RATE_LIMIT_PER_SECOND: '30', MAX_REQUESTS_IN_FLIGHT: '100' }));
    const made = limiters(b, third);
    let admitted = 0;
    for (let i = 0; i < 100; i++) if ('release' in made.scimAdmission.admit('t', 'i')) admitted++;
    // A third of the burst of 60.
    expect(admitted).toBe(20);
    expect(asked).toContain('scim-integration t|i');
    expect(asked).toContain('scim-tenant t');
    expect(made.graphqlRateLimiter.takeUnits('t', b.graphqlTenantRate.burst / 3)).toBe(0);
    expect(made.graphqlRateLimiter.take('t')).toBeGreaterThan(0);
  });

  it('makes limiters that hold the sizes of their rows', () => {
    const b = budgets(loadSettings({ ...base, SCIM_RATE_LIMIT_PER_SECOND: '2', MAX_REQUESTS_IN_FLIGHT: '10' }));
    const made = limiters({ ...b, scimIntegrationRate: { ...b.scimIntegrationRate, burst: 3 } });
    const admitted = [1, 2, 3, 4].map(() => 'release' in made.scimAdmission.admit('t', 'i'));
    expect(admitted).toEqual([true, true, true, false]);
    expect(made.graphqlRateLimiter.takeUnits('t', b.graphqlTenantRate.burst)).toBe(0);
    expect(made.graphqlRateLimiter.take('t')).toBeGreaterThan(0);
    const hold = made.graphqlBodyBytes.hold('t');
    expect(hold.grow(b.graphqlBodyBytes.perTenant)).toBe(true);
    expect(hold.grow(1)).toBe(false);
  });
});
