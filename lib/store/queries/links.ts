/** Queries of the `links` container (claims: partition = tenant id, id = directory object id). */
import { acrossPartitions, inPartition, listParameters, type NamedQuery, type Whole } from './namedQuery';

const container = 'links' as const;

/** Who holds the claims on these users of a tenant (users without a claim are absent). */
export function claimHolders(
  tenantId: string,
  userIds: readonly string[],
): NamedQuery<{ id: string; identityPk: string; identityId: string }> {
  const list = listParameters('u', userIds);
  return inPartition(
    { name: 'claimHolders', container, index: { paths: [] } },
    tenantId,
    'SELECT c.id, c.identityPk, c.identityId',
    [`c.id IN (${list.names})`],
    list.parameters,
  );
}

/** Claims made before `cutoff`, in object-id order after `after` (the orphan repair's walk). */
export function claimsOlderThan(cutoff: string, after: string): NamedQuery<Whole> {
  return acrossPartitions(
    { name: 'claimsOlderThan', container, index: { paths: ['/claimedAt/?'] } },
    'SELECT * FROM c WHERE c.claimedAt < @cutoff AND c.id > @after ORDER BY c.id',
    [
      { name: '@cutoff', value: cutoff },
      { name: '@after', value: after },
    ],
  );
}

export function examples(): Array<NamedQuery<unknown>> {
  return [claimHolders('t', ['a', 'b']), claimsOlderThan('c', '')];
}
