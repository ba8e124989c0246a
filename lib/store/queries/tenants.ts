/** Queries of the `tenants` container (partition = id = tenant id). */
import { acrossPartitions, type NamedQuery, type Whole } from './namedQuery';

/** Every registered tenant in id order (operator tooling). */
export function allTenants(): NamedQuery<Whole> {
  return acrossPartitions(
    { name: 'allTenants', container: 'tenants', index: { paths: [] } },
    'SELECT * FROM c ORDER BY c.id',
  );
}

export function examples(): Array<NamedQuery<unknown>> {
  return [allTenants()];
}
