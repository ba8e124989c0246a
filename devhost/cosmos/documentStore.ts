/**
 * The documents of one container, kept per logical partition: a map by id (of their JSON text, parsed
 * when read: see partition.ts), the ids in sorted order, the container's unique keys (per partition, as
 * in Cosmos DB) and lazily built secondary indexes.
 * It replaces the library's document list (same methods, so the library's handlers for point
 * operations and batches work unchanged) and adds partition-scoped, index-answered queries.
 */
import { randomUUID } from 'node:crypto';
import { EqualityIndex, SortedIds, SortedIndex, valueAt } from './indexes';
import type { Json, LibDocuments } from './library';
import { QueryCache, type QueryOutput } from './compiledQuery';
import { runQuery, type QueryRequest } from './queryPlanner';
import { addCharge } from './chargeMeter';
import { createCharge, deleteCharge, replaceCharge, type IndexingPolicy } from './requestCharge';
import { coverageGaps, describeGaps, hasGaps, queryIndexNeeds, type CoverageGaps } from './indexCoverage';
import { ExpiryQueue, expiresAt } from './expiry';
import { partitionKeyOf, StoredDocuments, type IndexedDocuments, type Partition } from './partition';
import { rememberSize } from './requestCharge';

export type { Partition };
export { partitionKeyOf };

export type DocumentChange = { t: 'put'; doc: Json; rc: number } | { t: 'del'; pk: unknown; id: string };

class EngineError extends Error {
  constructor(
    message: string,
    readonly conflict = false,
    readonly badRequest = false,
  ) {
    super(message);
  }
}

function uniqueValueKey(v: unknown): string {
  return v === undefined || v === null ? 'z' : typeof v === 'string' ? `s${v}` : `j${JSON.stringify(v)}`;
}

/** Where an expiring document is and which version of it expires (a later write gives it another `_etag`). */
interface Expiring {
  partition: string;
  id: string;
  etag: unknown;
}

interface Transaction {
  undo: Array<() => void>;
  changes: DocumentChange[];
}

export class DocumentStore implements IndexedDocuments {
  readonly partitions = new Map<string, Partition>();
  readonly equality = new Map<string, EqualityIndex>();
  readonly sorted = new Map<string, SortedIndex>();
  readonly queries = new QueryCache();
  readonly partitionKeyPath: string[];
  private readonly uniquePaths: string[][];
  private ridCount = 0;
  /** Documents handed to the query evaluator so far (what a query costs beyond its index look-ups). */
  examined = 0;
  /** Queries the indexing policy could not serve, by query text: what is missing (paths only). */
  readonly indexGaps = new Map<string, string[]>();
  private readonly coverage = new WeakMap<object, { policy: IndexingPolicy; gaps: CoverageGaps }>();
  private tx: Transaction | undefined;
  /** Receives every change once it is decided (one call per write, one per committed batch). */
  onChanges: ((changes: DocumentChange[]) => void) | undefined;
  /** The clock time to live is measured with (epoch milliseconds). */
  now: () => number = Date.now;
  /** Documents that expire, by expiry time (entries of documents replaced or deleted since are skipped). */
  private readonly expiry = new ExpiryQueue<Expiring>();

  constructor(
    private readonly lib: LibDocuments,
    partitionKeyPaths: readonly string[],
    uniqueKeyPaths: readonly string[],
    readonly compositeIndexes: () => unknown[],
    readonly indexingPolicy: () => IndexingPolicy = () => ({}),
    /** The container's `defaultTtl` setting as it is now. */
    private readonly defaultTtl: () => unknown = () => undefined,
  ) {
    const first = partitionKeyPaths[0];
    this.partitionKeyPath = !first || first === '/_partitionKey' ? ['id'] : first.slice(1).split('/');
    this.uniquePaths = uniqueKeyPaths.map((p) => p.slice(1).split('/'));
  }

  get size(): number {
    let n = 0;
    for (const p of this.partitions.values()) n += p.docs.size;
    return n;
  }

  partitionValueOf(doc: Json): unknown {
    return valueAt(doc, this.partitionKeyPath);
  }

  /** The document as stored (a new object on each call: changing it changes nothing stored). */
  get(partitionValue: unknown, id: string): Json | undefined {
    const doc = this.partitions.get(partitionKeyOf(partitionValue))?.docs.get(id);
    if (!doc) return undefined;
    const at = expiresAt(doc, this.defaultTtl());
    return at !== undefined && at <= this.now() ? undefined : doc;
  }

  // ---- time to live ----

  /** Deletes the documents whose time to live has run out (journaled like any delete). */
  expireDue(): void {
    if (this.tx || this.expiry.size === 0) return;
    const due: Json[] = [];
    for (const { partition, id, etag } of this.expiry.takeDue(this.now())) {
      const doc = this.partitions.get(partition)?.docs.get(id);
      if (doc && doc._etag === etag) due.push(doc);
    }
    if (due.length === 0) return;
    this.run(() => {
      for (const doc of due) {
        this.remove(doc);
        this.record({ t: 'del', pk: this.partitionValueOf(doc), id: String(doc.id) });
      }
      return true;
    });
  }

  /** The container's settings changed (its `defaultTtl` may have): expiry times are worked out again. */
  settingsChanged(): void {
    this.expiry.clear();
    const defaultTtl = this.defaultTtl();
    // Without a default time to live nothing expires: the documents need not be read.
    if (typeof defaultTtl !== 'number') return;
    for (const p of this.partitions.values()) {
      for (const [id, doc] of p.docs.entries()) {
        const at = expiresAt(doc, defaultTtl);
        if (at !== undefined) this.expiry.push(at, { partition: p.key, id, etag: doc._etag });
      }
    }
  }

  // ---- the library's document-list interface (used by its point-operation and batch handlers) ----

  /** `collection.document(id, partition)` of the library. */
  _item(_keyPath: string, id: string, partition: unknown): { read(): Json | undefined } {
    this.expireDue();
    const doc = this.get(partition ?? id, id);
    return { read: () => doc };
  }

  create(data: Json): Json {
    this.expireDue();
    return this.atomically(() => this.createNow(data));
  }

  private createNow(data: Json): Json {
    const pkValue = this.partitionValueOf(data);
    const p = this.partitions.get(partitionKeyOf(pkValue));
    const id = String(data.id);
    if (p?.docs.has(id)) throw new EngineError('Resource with specified id already exists.', true);
    for (const path of this.uniquePaths) {
      if (p?.unique.get(path.join('/'))?.has(uniqueValueKey(valueAt(data, path))))
        throw new EngineError(`Resource with specified ${path.join('/')} already exists.`, true);
    }
    this.ridCount += 1;
    const _rid = this.lib._rid(this.ridCount);
    const doc: Json = {
      ...data,
      id,
      _etag: randomUUID(),
      _rid,
      _self: this.lib._self(_rid),
      _ts: Math.floor(this.now() / 1000),
    };
    this.put(doc);
    this.record({ t: 'put', doc, rc: this.ridCount });
    addCharge(() => createCharge(doc, this.indexingPolicy()));
    return doc;
  }

  replace(data: Json, original: Json): Json {
    this.expireDue();
    return this.atomically(() => this.replaceNow(data, original));
  }

  private replaceNow(data: Json, original: Json): Json {
    const pkValue = this.partitionValueOf(data);
    if (partitionKeyOf(pkValue) !== partitionKeyOf(this.partitionValueOf(original))) {
      throw new EngineError(`replacing partition key "${this.partitionKeyPath.join('.')}" is not allowed`, false, true);
    }
    const old = this.get(pkValue, String(data.id));
    if (!old) throw new EngineError('replacing id is not allowed', false, true);
    const p = this.partitions.get(partitionKeyOf(pkValue));
    for (const path of this.uniquePaths) {
      const key = uniqueValueKey(valueAt(data, path));
      if (key === uniqueValueKey(valueAt(old, path))) continue;
      const holder = p?.unique.get(path.join('/'))?.get(key);
      if (holder !== undefined && holder !== old.id)
        throw new EngineError(`Resource with specified ${path.join('/')} already exists.`, true);
    }
    const doc: Json = {
      ...data,
      id: old.id,
      _etag: randomUUID(),
      _rid: old._rid,
      _self: old._self,
      _ts: Math.floor(this.now() / 1000),
    };
    this.swap(old, doc);
    this.record({ t: 'put', doc, rc: this.ridCount });
    addCharge(() => replaceCharge(old, doc, this.indexingPolicy()));
    return doc;
  }

  upsert(data: Json): Json {
    this.expireDue();
    const old = this.get(this.partitionValueOf(data), String(data.id));
    return old ? this.replace(data, old) : this.create(data);
  }

  delete(id: string, partition: unknown): void {
    this.expireDue();
    this.atomically(() => this.deleteNow(id, partition));
  }

  private deleteNow(id: string, partition: unknown): void {
    const old = this.get(partition ?? id, id);
    if (!old) throw new Error('does not exist');
    this.remove(old);
    this.record({ t: 'del', pk: this.partitionValueOf(old), id });
    addCharge(() => deleteCharge(old, this.indexingPolicy()));
  }

  /** Read feed: every document of the container. */
  read(options: { maxItemCount?: number | null; continuation?: { token: string } | null } = {}): QueryOutput {
    return this.query({ query: 'SELECT * FROM c' }, options);
  }

  /** A query over one partition (`partition` given) or every partition. */
  query(
    body: { query: string; parameters?: Array<{ name: string; value: unknown }> },
    options: Omit<QueryRequest, 'partition'>,
    partition?: { value: unknown },
  ): QueryOutput {
    this.expireDue();
    const compiled = this.queries.get(body.query);
    const gaps = this.gapsOf(compiled);
    if (gaps.orderRefused) throw new EngineError(`The index policy cannot serve this ORDER BY: ${gaps.orderRefused}`);
    const examinedBefore = this.examined;
    const output = runQuery(this, compiled, body.parameters ?? [], { ...options, partition });
    // What Cosmos DB reads beyond an index-served query: every document of the scanned partitions
    // when a filtered path is not indexed; the documents walked to filter when no composite serves
    // "equality filter + ORDER BY". One request unit per document read.
    if (gaps.unindexedFilters.length > 0) {
      const scanned = partition ? (this.partitions.get(partitionKeyOf(partition.value))?.docs.size ?? 0) : this.size;
      addCharge(() => scanned);
    } else if (gaps.missingComposite) {
      const walked = this.examined - examinedBefore;
      addCharge(() => walked);
    }
    return output;
  }

  private gapsOf(compiled: { ast: Json; sql: string }): CoverageGaps {
    const policy = this.indexingPolicy();
    const known = this.coverage.get(compiled);
    if (known && known.policy === policy) return known.gaps;
    const gaps = coverageGaps(queryIndexNeeds(compiled.ast, this.partitionKeyPath), policy);
    this.coverage.set(compiled, { policy, gaps });
    if (hasGaps(gaps)) this.indexGaps.set(compiled.sql, describeGaps(gaps));
    return gaps;
  }

  // ---- transactional batches ----

  /**
   * Runs `fn` as one transaction: when it returns false or throws, or its changes cannot be
   * journaled, every change it made is undone (so nothing unacknowledged stays visible).
   */
  transaction(fn: () => boolean): void {
    if (this.tx) throw new Error('nested transaction');
    this.expireDue();
    this.run(fn);
  }

  private run(fn: () => boolean): void {
    const tx: Transaction = { undo: [], changes: [] };
    const undoAll = () => {
      for (const undo of tx.undo.reverse()) undo();
    };
    this.tx = tx;
    let commit = false;
    try {
      commit = fn();
    } finally {
      this.tx = undefined;
      if (!commit) undoAll();
    }
    if (!commit || tx.changes.length === 0) return;
    try {
      this.onChanges?.(tx.changes);
    } catch (err) {
      undoAll();
      throw err;
    }
  }

  /** A single write: inside a batch's transaction, or as its own. */
  private atomically<T>(fn: () => T): T {
    if (this.tx) return fn();
    let out: T | undefined;
    this.run(() => {
      out = fn();
      return true;
    });
    return out as T;
  }

  // ---- replay from the journal ----

  restore(change: DocumentChange): void {
    if (change.t === 'put') {
      const old = this.get(this.partitionValueOf(change.doc), String(change.doc.id));
      if (old) this.swap(old, change.doc);
      else this.put(change.doc);
      this.ridCount = Math.max(this.ridCount, change.rc);
    } else {
      const old = this.get(change.pk, change.id);
      if (old) this.remove(old);
    }
  }

  /** Every stored document as of now, as its JSON text (a write replaces a text, never changes one). */
  documentsNow(): { rc: number; texts: string[] } {
    const texts: string[] = [];
    for (const p of this.partitions.values()) for (const text of p.docs.texts()) texts.push(text);
    return { rc: this.ridCount, texts };
  }

  *changesForSnapshot(): Iterable<DocumentChange> {
    for (const p of this.partitions.values())
      for (const doc of p.docs.values()) yield { t: 'put', doc, rc: this.ridCount };
  }

  // ---- indexes ----

  equalityIndex(path: readonly string[]): EqualityIndex {
    const name = path.join('.');
    let index = this.equality.get(name);
    if (!index) {
      index = new EqualityIndex(path);
      for (const p of this.partitions.values()) for (const [id, doc] of p.docs.entries()) index.add(p.key, doc, id);
      this.equality.set(name, index);
    }
    return index;
  }

  sortedIndex(path: readonly string[]): SortedIndex {
    const name = path.join('.');
    let index = this.sorted.get(name);
    if (!index) {
      index = new SortedIndex(path);
      for (const p of this.partitions.values()) index.load(p.key, p.docs.entries());
      this.sorted.set(name, index);
    }
    return index;
  }

  // ---- internals ----

  private record(change: DocumentChange): void {
    this.tx?.changes.push(change);
  }

  private put(doc: Json): void {
    const key = partitionKeyOf(this.partitionValueOf(doc));
    let p = this.partitions.get(key);
    if (!p) {
      p = {
        key,
        docs: new StoredDocuments(),
        ids: new SortedIds(),
        unique: new Map(this.uniquePaths.map((path) => [path.join('/'), new Map<string, string>()])),
      };
      this.partitions.set(key, p);
    }
    const id = String(doc.id);
    const text = JSON.stringify(doc);
    rememberSize(doc, text);
    p.docs.set(id, doc, text);
    p.ids.insert(id);
    for (const path of this.uniquePaths) p.unique.get(path.join('/'))?.set(uniqueValueKey(valueAt(doc, path)), id);
    for (const index of this.equality.values()) index.add(key, doc);
    for (const index of this.sorted.values()) index.add(key, doc);
    const at = expiresAt(doc, this.defaultTtl());
    if (at !== undefined) this.expiry.push(at, { partition: key, id, etag: doc._etag });
    if (this.tx) this.tx.undo.push(() => this.remove(doc));
  }

  /**
   * Puts `doc` in the place of `old` (same partition and id). The id keeps its place in the partition's
   * id order and index entries whose value did not change stay: a replace costs no shift of the sorted
   * lists, whatever the partition's size. `old` is the stored version (read in the same synchronous write).
   */
  private swap(old: Json, doc: Json): void {
    const key = partitionKeyOf(this.partitionValueOf(doc));
    const p = this.partitions.get(key);
    const id = String(doc.id);
    if (!p || !p.docs.has(id)) throw new Error('swap of a document that is not stored');
    const text = JSON.stringify(doc);
    rememberSize(doc, text);
    p.docs.set(id, doc, text);
    for (const path of this.uniquePaths) {
      const values = p.unique.get(path.join('/'));
      const before = uniqueValueKey(valueAt(old, path));
      const after = uniqueValueKey(valueAt(doc, path));
      if (before === after || !values) continue;
      if (values.get(before) === id) values.delete(before);
      values.set(after, id);
    }
    for (const index of [...this.equality.values(), ...this.sorted.values()]) {
      if (valueAt(old, index.path) === valueAt(doc, index.path)) continue;
      index.remove(key, old);
      index.add(key, doc);
    }
    const at = expiresAt(doc, this.defaultTtl());
    if (at !== undefined) this.expiry.push(at, { partition: key, id, etag: doc._etag });
    if (this.tx) this.tx.undo.push(() => this.swap(doc, old));
  }

  /** Removes `doc`, the stored version (read in the same synchronous write, or just put by it). */
  private remove(doc: Json): void {
    const key = partitionKeyOf(this.partitionValueOf(doc));
    const p = this.partitions.get(key);
    if (!p) return;
    const id = String(doc.id);
    if (!p.docs.delete(id)) return;
    p.ids.remove(id);
    for (const path of this.uniquePaths) {
      const values = p.unique.get(path.join('/'));
      const vk = uniqueValueKey(valueAt(doc, path));
      if (values?.get(vk) === id) values.delete(vk);
    }
    for (const index of this.equality.values()) index.remove(key, doc);
    for (const index of this.sorted.values()) index.remove(key, doc);
    if (p.docs.size === 0) {
      this.partitions.delete(key);
      for (const index of this.equality.values()) index.dropPartition(key);
      for (const index of this.sorted.values()) index.dropPartition(key);
    }
    if (this.tx) this.tx.undo.push(() => this.put(doc));
  }
}
