/**
 * A container's logical partitions and what the query planner reads of a container's documents.
 * Each partition keeps its documents serialized (their JSON text) and parses one when it is read: a
 * million stored items then take about their JSON size in the engine's heap instead of an object graph
 * several times as large, so the local engine holds a benchmark's million identities with their history.
 */
import type { EqualityIndex, SortedIds, SortedIndex } from './indexes';
import type { Json } from './library';
import { rememberSize } from './requestCharge';

/** The documents of one partition by id, kept as JSON text; every read gives a new object. */
export class StoredDocuments {
  private readonly byId = new Map<string, string>();
  /** Each document's `_rid`: the order of unordered results, read without parsing the document. */
  private readonly ridById = new Map<string, string>();

  get size(): number {
    return this.byId.size;
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  /** The document (parsed anew: the caller may change it without touching what is stored). */
  get(id: string): Json | undefined {
    const text = this.byId.get(id);
    return text === undefined ? undefined : parse(text);
  }

  /** The document's JSON text as stored. */
  text(id: string): string | undefined {
    return this.byId.get(id);
  }

  /** Stores `doc` under `id` (its text when the caller already has it). */
  set(id: string, doc: Json, text: string = JSON.stringify(doc)): void {
    this.byId.set(id, text);
    if (typeof doc._rid === 'string') this.ridById.set(id, doc._rid);
    else this.ridById.delete(id);
  }

  /** The document's `_rid` (undefined for one stored without). */
  rid(id: string): string | undefined {
    return this.ridById.get(id);
  }

  delete(id: string): boolean {
    this.ridById.delete(id);
    return this.byId.delete(id);
  }

  keys(): IterableIterator<string> {
    return this.byId.keys();
  }

  /** Every document, parsed as it is reached. */
  *values(): Generator<Json> {
    for (const text of this.byId.values()) yield parse(text);
  }

  /** Every document with its id (the id as the map keeps it, so indexes built from here share its string). */
  *entries(): Generator<[string, Json]> {
    for (const [id, text] of this.byId) yield [id, parse(text)];
  }

  /** The stored texts (a snapshot collects them by reference: a write replaces a text, never changes one). */
  texts(): IterableIterator<string> {
    return this.byId.values();
  }
}

function parse(text: string): Json {
  const doc = JSON.parse(text) as Json;
  rememberSize(doc, text);
  return doc;
}

export interface Partition {
  key: string;
  docs: StoredDocuments;
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
