/**
 * Budgets that hold for the whole fleet, not per instance: Flex Consumption runs as many instances as load asks
 * for, and a budget each instance applied alone would give a tenant k times its figure on k instances. A fleet
 * budget's limiter admits against the fraction of the budget this instance has now for a key, which the store
 * leases to it (lib/store/fleetLeases.ts: the Rate Limiting pattern of the Azure Architecture Center, Google's
 * Doorman). This module is what the limiters see of it: a fraction, read without waiting.
 */

/** What a limiter asks of the fleet: the fraction (0 to 1] of a budget this instance may use now. */
export interface ShareSource {
  fraction(budget: string, key: string): number;
}

/** The names of the fleet budgets' leases (the id of their documents in the `leases` container). */
export const FLEET_BUDGET = {
  scimIntegration: 'scim-integration',
  scimTenant: 'scim-tenant',
  graphqlTenant: 'graphql-tenant',
  bulkItems: 'bulk-items',
  busyRefusals: 'busy-refusals',
  refusalRecords: 'refusal-records',
  bulkTenantRequestUnits: 'bulk-ru-tenant',
  bulkServiceRequestUnits: 'bulk-ru-service',
} as const;

/** One instance alone: every budget whole (unit tests of a limiter, tools). */
export const WHOLE_BUDGET: ShareSource = { fraction: () => 1 };
