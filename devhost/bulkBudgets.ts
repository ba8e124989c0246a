/**
 * The request-unit budgets of bulk work (BULK_REQUEST_UNITS_PER_SECOND[_PER_TENANT]) the local stack gives the
 * service when they are not set: in step with the local engine's budget, as an operator sets them for an
 * account. With a budget of R RU/s per container, all tenants' bulk work gets half of it and one tenant two
 * fifths (for a serverless container's 5,000: 2,500 and 2,000, the service's defaults). Without a budget the
 * engine serves any rate, and holding bulk work back would only slow the local stack down.
 */
import { DEFAULT_BULK_RU_PER_INSTANCE, DEFAULT_BULK_RU_PER_TENANT } from '../lib/config/settings';

export const BULK_BUDGET_SETTINGS = [
  'BULK_REQUEST_UNITS_PER_SECOND_PER_TENANT',
  'BULK_REQUEST_UNITS_PER_SECOND',
] as const;

/** A rate no local run reaches: bulk work is never held back. */
export const UNLIMITED_BULK_RU = 10_000_000;

/** A serverless container's RU/s, for which the service's defaults are made. */
const SERVERLESS_CONTAINER_RU = 5_000;

export function bulkBudgetsFor(
  engineRuPerSecond: number | undefined,
): Record<(typeof BULK_BUDGET_SETTINGS)[number], string> {
  if (!engineRuPerSecond)
    return {
      BULK_REQUEST_UNITS_PER_SECOND_PER_TENANT: String(UNLIMITED_BULK_RU),
      BULK_REQUEST_UNITS_PER_SECOND: String(UNLIMITED_BULK_RU),
    };
  const share = (defaultRu: number) =>
    String(Math.max(1, Math.round((engineRuPerSecond * defaultRu) / SERVERLESS_CONTAINER_RU)));
  return {
    BULK_REQUEST_UNITS_PER_SECOND_PER_TENANT: share(DEFAULT_BULK_RU_PER_TENANT),
    BULK_REQUEST_UNITS_PER_SECOND: share(DEFAULT_BULK_RU_PER_INSTANCE),
  };
}
