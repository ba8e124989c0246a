/** Queries of the `activity` container (refused SCIM requests per integration; id begins with the time). */
import { asc, desc, inPartition, type NamedQuery, type Whole } from './namedQuery';

export interface RefusalFilter {
  /** Only records with an id below this one. */
  before?: string;
  /** Only records from this id on. */
  since?: string;
  externalId?: string;
}

/** An integration's refused requests newest first, at most `limit`. */
export function refusalsNewestFirst(pk: string, filter: RefusalFilter, limit: number): NamedQuery<Whole> {
  const where: string[] = [];
  const parameters: Array<{ name: string; value: string }> = [];
  if (filter.before !== undefined) {
    where.push('c.id < @before');
    parameters.push({ name: '@before', value: filter.before });
  }
  if (filter.since !== undefined) {
    where.push('c.id >= @since');
    parameters.push({ name: '@since', value: filter.since });
  }
  if (filter.externalId !== undefined) {
    where.push('c.externalId = @externalId');
    parameters.push({ name: '@externalId', value: filter.externalId });
  }
  return inPartition(
    {
      name: 'refusalsNewestFirst',
      container: 'activity',
      index: { paths: ['/externalId/?'], composites: [[asc('/externalId'), desc('/id')]] },
    },
    pk,
    `SELECT TOP ${limit} *`,
    where,
    parameters,
    'c.id DESC',
  );
}

export function examples(): Array<NamedQuery<unknown>> {
  return [
    refusalsNewestFirst('t|i', {}, 10),
    refusalsNewestFirst('t|i', { before: 'b', since: 'a', externalId: 'e' }, 10),
  ];
}
