import { ScimAdmission, type ScimAdmitted } from '../../../lib/limits/scimAdmission';

const LIMITS = { integrationPerSecond: 20, tenantPerSecond: 20, integrationInFlight: 2, tenantInFlight: 3 };

function admission(limits = LIMITS) {
  const clock = { t: 1_000_000 };
  return { a: new ScimAdmission(limits, () => clock.t), clock };
}

/** Admits and releases at once `n` times; the number admitted. */
function accepted(a: ScimAdmission, tenantId: string, integrationId: string, n: number): number {
  let ok = 0;
  for (let i = 0; i < n; i++) {
    const r = a.admit(tenantId, integrationId);
    if ('release' in r) {
      ok++;
      r.release();
    }
  }
  return ok;
}

const refusalOf = (r: ScimAdmitted) => ('refused' in r ? r.refused : undefined);

describe('SCIM admission: the integration budget and, above it, the tenant budget', () => {
  it('one integration alone gets its burst; two integrations of the tenant together get the same, not twice', () => {
    const alone = admission();
    expect(accepted(alone.a, 't1', 'i1', 100)).toBe(40);

    const two = admission();
    let total = 0;
    for (let i = 0; i < 100; i++) total += accepted(two.a, 't1', i % 2 ? 'i1' : 'i2', 1);
    expect(total).toBe(40);
    // A second later the tenant has 20 more, whichever integration asks.
    two.clock.t += 1000;
    expect(accepted(two.a, 't1', 'i1', 100) + accepted(two.a, 't1', 'i2', 100)).toBe(20);
  });

  it('another tenant has its own budget', () => {
    const { a } = admission();
    expect(accepted(a, 't1', 'i1', 100)).toBe(40);
    expect(accepted(a, 't2', 'i3', 100)).toBe(40);
  });

  it('a refusal for the tenant takes nothing from the integration, and says whose budget is used up', () => {
    const { a, clock } = admission({ ...LIMITS, integrationPerSecond: 10, tenantPerSecond: 10 });
    expect(accepted(a, 't1', 'i1', 20)).toBe(20);
    expect(refusalOf(a.admit('t1', 'i2'))).toEqual({ scope: 'tenant', reason: 'rate', retryAfterSeconds: 1 });
    expect(refusalOf(a.admit('t1', 'i1'))).toEqual({ scope: 'integration', reason: 'rate', retryAfterSeconds: 1 });
    // i2 was refused many times: its own budget is whole once the tenant has room again.
    for (let i = 0; i < 50; i++) a.admit('t1', 'i2');
    clock.t += 2000;
    expect(accepted(a, 't1', 'i2', 100)).toBe(20);
  });

  it('requests in flight: the integration bound, then the tenant bound; release frees both', () => {
    const { a } = admission({ ...LIMITS, integrationPerSecond: 1000, tenantPerSecond: 1000 });
    const held = [a.admit('t1', 'i1'), a.admit('t1', 'i1')];
    expect(refusalOf(a.admit('t1', 'i1'))).toEqual({ scope: 'integration', reason: 'inFlight', retryAfterSeconds: 1 });
    const third = a.admit('t1', 'i2');
    expect('release' in third).toBe(true);
    expect(refusalOf(a.admit('t1', 'i2'))).toEqual({ scope: 'tenant', reason: 'inFlight', retryAfterSeconds: 1 });
    expect('release' in a.admit('t2', 'i3')).toBe(true);
    for (const h of held) if ('release' in h) h.release();
    expect('release' in a.admit('t1', 'i2')).toBe(true);
  });

  it('charged work is charged to the integration and to its tenant', () => {
    const { a } = admission({ ...LIMITS, integrationPerSecond: 20, tenantPerSecond: 40 });
    a.charge('t1', 'i1', 60);
    expect(refusalOf(a.admit('t1', 'i1'))?.scope).toBe('integration');
    // The tenant had 80, 60 were charged: 20 left for its other integrations.
    expect(accepted(a, 't1', 'i2', 100)).toBe(20);
  });
});
