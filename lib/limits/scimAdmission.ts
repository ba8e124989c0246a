/**
 * Whether a SCIM request may start: its integration's budget (SCIM_RATE_LIMIT_PER_SECOND,
 * MAX_REQUESTS_IN_FLIGHT) and, above it, its tenant's (SCIM_TENANT_RATE_LIMIT_PER_SECOND,
 * SCIM_TENANT_MAX_REQUESTS_IN_FLIGHT), which all the tenant's integrations share: a tenant with more
 * integrations gets no more of the instance. A request is admitted only when both have room, and a refusal
 * takes nothing from either, so the integrations of a tenant that is at its budget do not use up their own.
 * The rates are the fleet's (each instance admits against its leased share, fleetShares.ts); the bounds in
 * flight protect one instance's memory and time and stay its own.
 */
import { RateLimiter } from './rateLimiter';
import { FLEET_BUDGET, WHOLE_BUDGET, type ShareSource } from './fleetShares';
import { InFlightLimiter, IN_FLIGHT_RETRY_AFTER_SECONDS } from './inFlight';

export interface ScimLimits {
  integrationPerSecond: number;
  tenantPerSecond: number;
  integrationInFlight: number;
  tenantInFlight: number;
  /** How many requests may come at once; twice the rate when not given. */
  integrationBurst?: number;
  tenantBurst?: number;
}

export interface ScimRefusal {
  /** Whose budget is used up: the integration's own or the tenant's shared one. */
  scope: 'integration' | 'tenant';
  reason: 'rate' | 'inFlight';
  retryAfterSeconds: number;
}

export type ScimAdmitted = { release: () => void } | { refused: ScimRefusal };

export class ScimAdmission {
  private readonly integrationRate: RateLimiter;
  private readonly tenantRate: RateLimiter;
  private readonly integrationInFlight: InFlightLimiter;
  private readonly tenantInFlight: InFlightLimiter;

  constructor(limits: ScimLimits, now: () => number = Date.now, fleet: ShareSource = WHOLE_BUDGET) {
    const integrationBurst = limits.integrationBurst ?? limits.integrationPerSecond * 2;
    const tenantBurst = limits.tenantBurst ?? limits.tenantPerSecond * 2;
    this.integrationRate = new RateLimiter(limits.integrationPerSecond, integrationBurst, now, (key) =>
      fleet.fraction(FLEET_BUDGET.scimIntegration, key),
    );
    this.tenantRate = new RateLimiter(limits.tenantPerSecond, tenantBurst, now, (key) =>
      fleet.fraction(FLEET_BUDGET.scimTenant, key),
    );
    this.integrationInFlight = new InFlightLimiter(limits.integrationInFlight);
    this.tenantInFlight = new InFlightLimiter(limits.tenantInFlight);
  }

  admit(tenantId: string, integrationId: string): ScimAdmitted {
    // The integration's budget is keyed under its tenant: its lease lives in the tenant's document.
    const integrationKey = `${tenantId}|${integrationId}`;
    const integrationWait = this.integrationRate.waitFor(integrationKey);
    if (integrationWait > 0) return refused('integration', 'rate', integrationWait);
    const tenantWait = this.tenantRate.waitFor(tenantId);
    if (tenantWait > 0) return refused('tenant', 'rate', tenantWait);
    const releaseIntegration = this.integrationInFlight.tryAcquire(integrationId);
    if (!releaseIntegration) return refused('integration', 'inFlight', IN_FLIGHT_RETRY_AFTER_SECONDS);
    const releaseTenant = this.tenantInFlight.tryAcquire(tenantId);
    if (!releaseTenant) {
      releaseIntegration();
      return refused('tenant', 'inFlight', IN_FLIGHT_RETRY_AFTER_SECONDS);
    }
    this.integrationRate.take(integrationKey);
    this.tenantRate.take(tenantId);
    return {
      release: () => {
        releaseIntegration();
        releaseTenant();
      },
    };
  }

  /**
   * A request of a disabled or unknown integration of the tenant, about to be refused 403: it takes from the
   * tenant's budget like any request (so disabled integrations are no way around it), and is refused 429
   * instead when the tenant's budget is used up.
   */
  admitRefused(tenantId: string): ScimRefusal | undefined {
    const wait = this.tenantRate.take(tenantId);
    return wait > 0 ? { scope: 'tenant', reason: 'rate', retryAfterSeconds: wait } : undefined;
  }

  /**
   * Work an admitted request turned out to need (a SCIM jump that read many ids), charged to both budgets:
   * the integration's next requests, and its tenant's, wait for it.
   */
  charge(tenantId: string, integrationId: string, units: number): void {
    this.integrationRate.charge(`${tenantId}|${integrationId}`, units);
    this.tenantRate.charge(tenantId, units);
  }
}

function refused(scope: ScimRefusal['scope'], reason: ScimRefusal['reason'], retryAfterSeconds: number): ScimAdmitted {
  return { refused: { scope, reason, retryAfterSeconds } };
}
