/**
 * A query the service runs, by name: its text, its parameters, the partition it stays in, and the indexes
 * it needs. Every query text lives under lib/store/queries; callers ask for a query by name and run it
 * with a collection's `page` or `all`. tests/unit/store/queries.test.ts reads every query of this folder
 * and checks that what each declares is served by its container's indexing policy (containers.ts) and
 * covers what the query reads.
 */
import type { SqlParameter, SqlQuerySpec } from '@azure/cosmos';
import type { ContainerName } from '../containers';

/** A path of a composite index and its direction, as Cosmos DB writes it. */
export interface CompositePath {
  path: string;
  order: 'ascending' | 'descending';
}

/** The indexes a query needs beyond the partition key, `id` and `_ts` (always indexed). */
export interface IndexNeed {
  /** Range paths as the indexing policy names them, e.g. `/link/status/?`. */
  paths: readonly string[];
  /** Composite indexes, for ORDER BY several paths or an equality filter with ORDER BY. */
  composites?: ReadonlyArray<readonly CompositePath[]>;
}

/** The rows of `SELECT *`: the collection's own documents (with their entity tags). A mark, never a value. */
export interface Whole {
  readonly __wholeDocument: true;
}

export interface NamedQuery<R> {
  readonly name: string;
  readonly container: ContainerName;
  readonly index: IndexNeed;
  readonly spec: SqlQuerySpec;
  /** The one partition the query reads; none: it reads across partitions. */
  readonly partitionKey?: string;
  /** The type of its rows (never set; it only carries the type). */
  readonly rows?: R;
}

export const asc = (path: string): CompositePath => ({ path, order: 'ascending' });
export const desc = (path: string): CompositePath => ({ path, order: 'descending' });

export type Parameters = SqlParameter[];

/**
 * A query inside one logical partition. The partition filter is part of the SQL as well as the request
 * option, so the query is scoped even on servers that ignore the option.
 */
export function inPartition<R>(
  definition: { name: string; container: ContainerName; index: IndexNeed },
  pk: string,
  select: string,
  where: readonly string[],
  parameters: Parameters = [],
  orderBy?: string,
): NamedQuery<R> {
  const filter = where.filter((w) => w !== '').join(' AND ');
  const query = `${select} FROM c WHERE c.pk = @pk${filter ? ` AND (${filter})` : ''}${orderBy ? ` ORDER BY ${orderBy}` : ''}`;
  return {
    ...definition,
    spec: { query, parameters: [{ name: '@pk', value: pk }, ...parameters] },
    partitionKey: pk,
  };
}

/** A query across the partitions of its container (a tenant's or the service's background walks). */
export function acrossPartitions<R>(
  definition: { name: string; container: ContainerName; index: IndexNeed },
  query: string,
  parameters: Parameters = [],
): NamedQuery<R> {
  return { ...definition, spec: { query, parameters } };
}

/** Parameter names `@<prefix>0, @<prefix>1, …` for the values of an IN list, with their parameters. */
export function listParameters(prefix: string, values: readonly unknown[]): { names: string; parameters: Parameters } {
  const names = values.map((_, i) => `@${prefix}${i}`);
  return {
    names: names.join(', '),
    parameters: values.map((value, i) => ({ name: names[i] ?? '', value: value as SqlParameter['value'] })),
  };
}
