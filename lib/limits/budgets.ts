/**
 * The instance's limits and admission budgets, described as data: one named row per budget, with what it
 * counts, whose share it is, and its size read from the settings (or fixed here, for the refusal pacings).
 * lib/services.ts builds the limiters from this table, so a budget is sized in one place.
 */
import type { Settings } from '../config/settings';
import { BodyBytesBudget } from './bodyBytes';
import { InFlightLimiter } from './inFlight';
import { RateLimiter } from './rateLimiter';
import { AUTHENTICATION_PACING, BUSY_PACING, RefusalPacer, type RefusalPacing } from './refusalPacing';
import { ScimAdmission } from './scimAdmission';

/** Whose share a budget is, on one instance. */
export type BudgetScope = 'integration' | 'tenant' | 'instance';

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
    scimIntegrationInFlight: inFlight('integration', s.maxRequestsInFlight, 'SCIM requests in flight'),
    scimTenantInFlight: inFlight('tenant', s.scimTenantMaxRequestsInFlight, 'SCIM requests in flight'),
    // A quarter of a minute's requests may come at once.
    graphqlTenantRate: rate(
      'tenant',
      s.graphqlRequestsPerMinute / 60,
      Math.max(1, s.graphqlRequestsPerMinute / 4),
      'GraphQL requests',
    ),
    graphqlTenantInFlight: inFlight('tenant', s.maxRequestsInFlight, 'GraphQL requests in flight'),
    // A minute's worth at once: the largest import or association fits (settings make sure of it).
    bulkItems: rate(
      'tenant',
      s.bulkItemsPerMinute / 60,
      s.bulkItemsPerMinute,
      'imported identities and associated pairs',
    ),
    graphqlBodyBytes: {
      kind: 'bytes',
      instance: s.graphqlBodyBytesInFlight,
      perTenant: s.graphqlTenantBodyBytesInFlight,
      counts: 'GraphQL request body bytes held',
    },
    authenticationRefusals: pacing('instance', AUTHENTICATION_PACING, 'refusals of invalid or missing tokens'),
    busyRefusals: pacing('tenant', BUSY_PACING, 'refusals of callers over a budget or at their bound in flight'),
  } satisfies Record<string, Budget>;
}
export type Budgets = ReturnType<typeof budgets>;

/** The limiters of an instance, each made from its row of the table. */
export function limiters(b: Budgets) {
  return {
    scimAdmission: new ScimAdmission({
      integrationPerSecond: b.scimIntegrationRate.perSecond,
      tenantPerSecond: b.scimTenantRate.perSecond,
      integrationInFlight: b.scimIntegrationInFlight.max,
      tenantInFlight: b.scimTenantInFlight.max,
      integrationBurst: b.scimIntegrationRate.burst,
      tenantBurst: b.scimTenantRate.burst,
    }),
    inFlight: new InFlightLimiter(b.graphqlTenantInFlight.max),
    graphqlRateLimiter: rateLimiter(b.graphqlTenantRate),
    bulkBudget: rateLimiter(b.bulkItems),
    authenticationRefusals: new RefusalPacer(b.authenticationRefusals),
    busyRefusals: new RefusalPacer(b.busyRefusals),
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
const rateLimiter = (b: RateBudget): RateLimiter => new RateLimiter(b.perSecond, b.burst);
