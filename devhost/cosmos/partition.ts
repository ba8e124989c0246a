/** A container's logical partitions and what the query planner reads of a container's documents. */
import type { EqualityIndex, SortedIds, SortedIndex } from './indexes';
import type { Json } from './library';

export interface Partition {
  key: string;
  docs: Map<string, Json>;
  /** Ids in ascending order (keyset paging, id ranges). */
  ids: SortedIds;
  /** Unique-key path -> value key -> id. */
  unique: Map<string, Map<string, string>>;
}

/** Partition map key of a partition-key value (strings as themselves, anything else as JSON). */
export function partitionKeyOf(value: unknown): string {
  return typeof value === 'string' ? `s${value}` : `j${JSON.stringify(value ?? null)}`;
}

/** The documents of one container as the query planner sees them (a DocumentStore). */
export interface IndexedDocuments {
  readonly partitions: ReadonlyMap<string, Partition>;
  readonly partitionKeyPath: readonly string[];
  /** Documents handed to the query evaluator so far. */
  examined: number;
  equalityIndex(path: readonly string[]): EqualityIndex;
  sortedIndex(path: readonly string[]): SortedIndex;
  compositeIndexes(): unknown[];
}
