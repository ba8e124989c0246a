import { partitionKey } from '../identities/model';
import { MANUAL_SOURCE_KEY } from '../identities/manualIdentities';
import { customSourceKey } from '../imports/importer';
import { isGuid, normalizeGuid } from '../util/guid';
import type { Services } from '../services';
import { badInput } from '../util/domainError';

/** The SCIM integration whose id `source` is (in any case), if any. */
async function scimIntegrationNamed(services: Services, tenantId: string, source: string) {
  return isGuid(source) ? services.integrations.get(tenantId, normalizeGuid(source)) : undefined;
}

/** The partition of a source named in an administrator call: `Manual`, a SCIM integration id, or a custom source. */
export async function sourcePartition(
  services: Services,
  tenantId: string,
  source: unknown,
): Promise<{ pk: string; label: string }> {
  if (typeof source !== 'string' || source === '') throw badInput([{ field: 'source', problem: 'must not be empty' }]);
  if (source.toLowerCase() === 'manual') return { pk: partitionKey(tenantId, MANUAL_SOURCE_KEY), label: 'Manual' };
  const integration = await scimIntegrationNamed(services, tenantId, source);
  if (integration) return { pk: partitionKey(tenantId, integration.id), label: integration.id };
  return { pk: partitionKey(tenantId, customSourceKey(source)), label: source };
}

/**
 * Import and association refuse a custom source name that is the id of one of the organization's SCIM
 * integrations: the administrator queries address that integration by it, so such a source could be
 * written but never read, linked or unlinked.
 */
export async function assertCustomSourceName(services: Services, tenantId: string, source: unknown): Promise<void> {
  if (typeof source === 'string' && (await scimIntegrationNamed(services, tenantId, source))) {
    throw badInput([
      {
        field: 'input.source',
        problem: 'is the id of a SCIM integration of the organization; choose another source name',
      },
    ]);
  }
}
