/** Queries of the `integrations` container (partition = tenant id). */
import { inPartition, type NamedQuery, type Whole } from './namedQuery';

const container = 'integrations' as const;

/** A tenant's SCIM integrations in the order they were created. */
export function integrationsOf(tenantId: string): NamedQuery<Whole> {
  return inPartition(
    { name: 'integrationsOf', container, index: { paths: ['/createdAt/?'] } },
    tenantId,
    'SELECT *',
    [],
    [],
    'c.createdAt',
  );
}

/** A tenant's integration of a client id (its normalized key). */
export function integrationByClientId(tenantId: string, clientIdKey: string): NamedQuery<Whole> {
  return inPartition(
    { name: 'integrationByClientId', container, index: { paths: ['/clientIdKey/?'] } },
    tenantId,
    'SELECT *',
    ['c.clientIdKey = @k'],
    [{ name: '@k', value: clientIdKey }],
  );
}

export function examples(): Array<NamedQuery<unknown>> {
  return [integrationsOf('t'), integrationByClientId('t', 'k')];
}
