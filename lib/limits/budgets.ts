/**
 * The service's limits and admission budgets, described as data: one named row per budget, with what it
 * counts, whose it is, and its size read from the settings (or fixed here, for the refusal pacings).
 * lib/services.ts builds the limiters from this table, so a budget is sized in one place.
 *
 * Whose a budget is: an `integration`'s, a `tenant`'s or the `service`'s budget holds for the whole fleet
 * (each instance admits against the share it leases, fleetShares.ts); an `instance` budget protects one
 * process (its memory, its requests in flight, its CPU) and each instance keeps its own.
 */
import type { Settings } from '../config/settings';
import { BodyBytesBudget } from './bodyBytes';
import { InFlightLimiter } from './inFlight';
import { RateLimiter } from './rateLimiter';
import { AUTHENTICATION_PACING, BUSY_PACING, RefusalPacer, type RefusalPacing } from './refusalPacing';
import { ScimAdmission } from './scimAdmission';
import { FLEET_BUDGET, WHOLE_BUDGET, type ShareSource } from './fleetShares';

/** Whose a budget is: the fleet's per integration, per tenant or for the service, or one instance's own. */
export type BudgetScope = 'integration' | 'tenant' | 'service' | 'instance';

/** Whether a budget of this scope is shared by the fleet (leased shares) or kept by each instance. */
export const holds = (scope: BudgetScope): 'fleet' | 'instance' => (scope === 'instance' ? 'instance' : 'fleet');

export interface RateBudget {
  kind: 'rate';
  scope: BudgetScope;
  perSecond: number;
  /** How many may come at once. */
  burst: number;
  counts: string;
}
export interface InFlightBudget {
  kind: 'inFlight';
  scope: BudgetScope;
  max: number;
  counts: string;
}
export interface BytesBudget {
  kind: 'bytes';
  scope: 'instance';
  /** The instance's bound, and each tenant's share of it. */
  instance: number;
  perTenant: number;
  counts: string;
}
export interface PacingBudget extends RefusalPacing {
  kind: 'pacing';
  scope: BudgetScope;
  counts: string;
}
export type Budget = RateBudget | InFlightBudget | BytesBudget | PacingBudget;

/** The named budgets of an instance, sized by the settings. */
export function budgets(s: Settings) {
  return {
    scimIntegrationRate: rate('integration', s.scimRateLimitPerSecond, s.scimRateLimitPerSecond * 2, 'SCIM requests'),
    scimTenantRate: rate('tenant', s.scimTenantRateLimitPerSecond, s.scimTenantRateLimitPerSecond * 2, 'SCIM requests'),
    // Requests in flight protect one instance's memory and time: each instance keeps its own bound.
    scimIntegrationInFlight: inFlight('instance', s.maxRequestsInFlight, 'SCIM requests in flight of an integration'),
    scimTenantInFlight: inFlight('instance', s.scimTenantMaxRequestsInFlight, 'SCIM requests in flight of a tenant'),
    // A quarter of a minute's requests may come at once.
    graphqlTenantRate: rate(
      'tenant',
      s.graphqlRequestsPerMinute / 60,
      Math.max(1, s.graphqlRequestsPerMinute / 4),
      'GraphQL requests',
    ),
    graphqlTenantInFlight: inFlight('instance', s.maxRequestsInFlight, 'GraphQL requests in flight of a tenant'),
    // A minute's worth at once: the largest import or association fits (settings make sure of it).
    bulkItems: rate(
      'tenant',
      s.bulkItemsPerMinute / 60,
      s.bulkItemsPerMinute,
      'imported identities and associated pairs',
    ),
    graphqlBodyBytes: {
      kind: 'bytes',
      scope: 'instance',
      instance: s.graphqlBodyBytesInFlight,
      perTenant: s.graphqlTenantBodyBytesInFlight,
      counts: 'GraphQL request body bytes held',
    },
    authenticationRefusals: pacing('instance', AUTHENTICATION_PACING, 'refusals of invalid or missing tokens'),
    busyRefusals: pacing('tenant', BUSY_PACING, 'refusals of callers over a budget or at their bound in flight'),
    refusalRecords: {
      kind: 'rate',
      scope: 'tenant',
      perSecond: s.activity.refusalsPerMinute / 60,
      burst: s.activity.refusalsPerMinute,
      counts: 'refused SCIM requests recorded one by one in the activity, per minute (the rest in a summary)',
    },
    bulkTenantRequestUnits: rate(
      'tenant',
      s.bulkRequestUnitsPerSecondPerTenant,
      s.bulkRequestUnitsPerSecondPerTenant / 2,
      "request units of a tenant's bulk work",
    ),
    bulkServiceRequestUnits: rate(
      'service',
      s.bulkRequestUnitsPerSecond,
      s.bulkRequestUnitsPerSecond / 2,
      "request units of all tenants' bulk work",
    ),
  } satisfies Record<string, Budget>;
}
export type Budgets = ReturnType<typeof budgets>;

/** The limiters of an instance, each made from its row of the table; fleet rows admit against `fleet`'s shares. */
export function limiters(b: Budgets, fleet: ShareSource = WHOLE_BUDGET) {
  const share = (budget: string) => (key: string) => fleet.fraction(budget, key);
  return {
    scimAdmission: new ScimAdmission(
      {
        integrationPerSecond: b.scimIntegrationRate.perSecond,
        tenantPerSecond: b.scimTenantRate.perSecond,
        integrationInFlight: b.scimIntegrationInFlight.max,
        tenantInFlight: b.scimTenantInFlight.max,
        integrationBurst: b.scimIntegrationRate.burst,
        tenantBurst: b.scimTenantRate.burst,
      },
      Date.now,
      fleet,
    ),
    inFlight: new InFlightLimiter(b.graphqlTenantInFlight.max),
    graphqlRateLimiter: rateLimiter(b.graphqlTenantRate, share(FLEET_BUDGET.graphqlTenant)),
    bulkBudget: rateLimiter(b.bulkItems, share(FLEET_BUDGET.bulkItems)),
    authenticationRefusals: new RefusalPacer(b.authenticationRefusals),
    busyRefusals: new RefusalPacer(b.busyRefusals, share(FLEET_BUDGET.busyRefusals)),
    graphqlBodyBytes: new BodyBytesBudget(b.graphqlBodyBytes.instance, b.graphqlBodyBytes.perTenant),
  };
}

function rate(scope: BudgetScope, perSecond: number, burst: number, counts: string): RateBudget {
  return { kind: 'rate', scope, perSecond, burst, counts };
}
function inFlight(scope: BudgetScope, max: number, counts: string): InFlightBudget {
  return { kind: 'inFlight', scope, max, counts };
}
function pacing(scope: BudgetScope, p: RefusalPacing, counts: string): PacingBudget {
  return { kind: 'pacing', scope, ...p, counts };
}
const rateLimiter = (b: RateBudget, share: (key: string) => number): RateLimiter =>
  new RateLimiter(b.perSecond, b.burst, Date.now, share);
