import { partitionKey } from '../identities/model';
import { MANUAL_SOURCE_KEY } from '../identities/manualIdentities';
import { customSourceKey } from '../imports/importer';
import { isGuid } from '../util/guid';
import type { Services } from '../services';
import { badInput } from '../util/domainError';

/** The partition of a source named in an administrator call: `Manual`, a SCIM integration id, or a custom source. */
export async function sourcePartition(services: Services, tenantId: string, source: unknown): Promise<{ pk: string; label: string }> {
  if (typeof source !== 'string' || source === '') throw badInput([{ field: 'source', problem: 'must not be empty' }]);
  if (source.toLowerCase() === 'manual') return { pk: partitionKey(tenantId, MANUAL_SOURCE_KEY), label: 'Manual' };
  if (isGuid(source)) {
    const integration = await services.integrations.get(tenantId, source);
    if (integration) return { pk: partitionKey(tenantId, integration.id), label: integration.id };
  }
  return { pk: partitionKey(tenantId, customSourceKey(source)), label: source };
}
