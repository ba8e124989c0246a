/** Queries of the `audit` container (partition = tenant id). */
import { asc, inPartition, type NamedQuery, type Whole } from './namedQuery';

/** A tenant's audit entries in time order, optionally of one target. */
export function auditEntries(tenantId: string, targetId?: string): NamedQuery<Whole> {
  return inPartition(
    {
      name: 'auditEntries',
      container: 'audit',
      index: { paths: ['/at/?', '/target/id/?'], composites: [[asc('/target/id'), asc('/at')]] },
    },
    tenantId,
    'SELECT *',
    targetId !== undefined ? ['c.target.id = @t'] : [],
    targetId !== undefined ? [{ name: '@t', value: targetId }] : [],
    'c.at',
  );
}

export function examples(): Array<NamedQuery<unknown>> {
  return [auditEntries('t'), auditEntries('t', 'x')];
}
