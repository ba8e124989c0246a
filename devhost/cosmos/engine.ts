/**
 * The engine's state: the library's account (databases and containers, their wire formats and
 * handlers), with each container's documents held by a partitioned, indexed DocumentStore, and
 * every change written to the journal when the engine persists.
 */
import { randomUUID } from 'node:crypto';
import { DocumentStore, type DocumentChange } from './documentStore';
import { Journal, type CompactionOptions, type JournalRecord } from './journal';
import type { IndexingPolicy } from './requestCharge';
import {
  Account,
  Collection,
  Database,
  type Json,
  type LibAccount,
  type LibCollection,
  type LibDatabase,
  type LibDocuments,
} from './library';

function attachStore(collection: LibCollection, data: Json): DocumentStore {
  const lib = collection.documents as LibDocuments;
  const partitionKey = (data.partitionKey ?? {}) as { paths?: string[] };
  const uniqueKeys = ((data.uniqueKeyPolicy ?? {}) as { uniqueKeys?: Array<{ paths: string[] }> }).uniqueKeys ?? [];
  const store = new DocumentStore(
    lib,
    partitionKey.paths ?? ['/id'],
    uniqueKeys.flatMap((k) => k.paths),
    () => (((collection.read() ?? {}).indexingPolicy ?? {}) as { compositeIndexes?: unknown[] }).compositeIndexes ?? [],
    () => ((collection.read() ?? {}).indexingPolicy ?? {}) as IndexingPolicy,
    () => collection.read()?.defaultTtl,
  );
  collection.documents = store;
  return store;
}

export interface ContainerContents {
  container: string;
  documents: number;
  /** Characters of the documents' stored JSON (bytes for ASCII text). */
  jsonBytes: number;
  partitions: number;
  /** Paths with an equality or sorted index (a path may have both). */
  indexedPaths: string[];
}

export function storeOf(collection: LibCollection): DocumentStore | undefined {
  return collection.documents instanceof DocumentStore ? collection.documents : undefined;
}

/** New settings for an existing container (indexing policy, time to live), keeping its documents. */
function setCollectionData(collection: LibCollection, data: Json): void {
  collection._data = data;
  storeOf(collection)?.settingsChanged();
}

export class Engine {
  readonly account: LibAccount;
  private journal: Journal | undefined;
  private replaying = false;

  constructor(host: string, port: number) {
    this.account = new Account(host, port);
    this.instrumentAccount();
  }

  /** Loads the folder's state, compacts it, and from then on journals every change there (compacting again as the journal grows). */
  persistTo(dir: string, compaction: CompactionOptions = {}): { documents: number } {
    const journal = Journal.open(dir, compaction);
    this.replaying = true;
    try {
      for (const rec of journal.replay()) this.apply(rec);
    } finally {
      this.replaying = false;
    }
    if (journal.needsCompaction()) journal.compact(this.snapshot());
    this.journal = journal;
    let documents = 0;
    for (const { store } of this.containers()) documents += store.size;
    return { documents };
  }

  /** Every query so far that the container's indexing policy could not serve, with what it lacked. */
  indexGaps(): Array<{ container: string; query: string; gaps: string[] }> {
    const out: Array<{ container: string; query: string; gaps: string[] }> = [];
    for (const { coll, store } of this.containers())
      for (const [query, gaps] of store.indexGaps) out.push({ container: coll, query, gaps });
    return out;
  }

  /** What each container holds: documents, their stored JSON in bytes, partitions and the paths indexed (for benchmarks' memory figures). */
  contents(): ContainerContents[] {
    const out: ContainerContents[] = [];
    for (const { coll, store } of this.containers()) {
      let jsonBytes = 0;
      for (const p of store.partitions.values()) for (const text of p.docs.texts()) jsonBytes += text.length;
      out.push({
        container: coll,
        documents: store.size,
        jsonBytes,
        partitions: store.partitions.size,
        indexedPaths: [...store.equality.keys(), ...store.sorted.keys()],
      });
    }
    return out;
  }

  close(): void {
    this.journal?.close();
    this.journal = undefined;
  }

  private write(rec: JournalRecord): void {
    if (this.replaying || !this.journal) return;
    this.journal.append(rec);
    if (this.journal.compactionDue()) this.compacted = this.journal.compactInBackground(() => this.capture());
  }

  /** The background compaction started last (settles when it is done or abandoned). */
  compacted: Promise<void> = Promise.resolve();

  /**
   * The state as of now, for a snapshot written while requests go on: the containers' documents are
   * collected by reference to their stored JSON text (a write puts a new text in place of a stored one
   * and never changes it), so later writes do not reach what is written.
   */
  private capture(): Iterable<JournalRecord> {
    const head = [...this.metadata()];
    const bodies = [...this.containers()].map(({ db, coll, store }) => ({ db, coll, ...store.documentsNow() }));
    return (function* () {
      yield* head;
      for (const { db, coll, rc, texts } of bodies)
        for (const text of texts) yield { t: 'put', doc: JSON.parse(text) as Json, rc, db, coll };
    })();
  }

  private *containers(): Generator<{ db: string; coll: string; data: Json; store: DocumentStore }> {
    for (const database of this.account.databases._data.values()) {
      const dbData = database.read();
      if (!dbData) continue;
      for (const collection of database.collections._data.values()) {
        const data = collection.read();
        const store = storeOf(collection);
        if (data && store) yield { db: String(dbData.id), coll: String(data.id), data, store };
      }
    }
  }

  private *snapshot(): Generator<JournalRecord> {
    yield* this.metadata();
    for (const { db, coll, store } of this.containers())
      for (const change of store.changesForSnapshot()) yield { ...change, db, coll };
  }

  private *metadata(): Generator<JournalRecord> {
    const dbs = this.account.databases;
    for (const database of dbs._data.values()) {
      const data = database.read();
      if (!data) continue;
      yield { t: 'db', data, rc: dbs._ridCount };
      for (const collection of database.collections._data.values()) {
        const cdata = collection.read();
        if (cdata) yield { t: 'coll', db: data.id, data: cdata, rc: database.collections._ridCount };
      }
    }
  }

  private apply(rec: JournalRecord): void {
    const dbs = this.account.databases;
    switch (rec.t) {
      case 'db': {
        const data = rec.data as Json;
        if (!this.account.database(String(data.id)).read()) dbs._set(data);
        dbs._ridCount = Math.max(dbs._ridCount, Number(rec.rc));
        return;
      }
      case 'dropDb':
        if (this.account.database(String(rec.id)).read()) dbs.delete(String(rec.id), String(rec.id));
        return;
      case 'coll': {
        const database = this.account.database(String(rec.db));
        const data = rec.data as Json;
        if (!database.read()) return;
        const existing = database.collection(String(data.id));
        if (existing.read()) setCollectionData(existing, data);
        else database.collections._set(data);
        database.collections._ridCount = Math.max(database.collections._ridCount, Number(rec.rc));
        return;
      }
      case 'dropColl': {
        const database = this.account.database(String(rec.db));
        if (database.collection(String(rec.id)).read()) database.collections.delete(String(rec.id), String(rec.id));
        return;
      }
      case 'batch':
        for (const change of rec.changes as JournalRecord[]) this.apply({ ...change, db: rec.db, coll: rec.coll });
        return;
      case 'put':
      case 'del': {
        const store = storeOf(this.account.database(String(rec.db)).collection(String(rec.coll)));
        store?.restore(rec as unknown as DocumentChange);
        return;
      }
      default:
        return;
    }
  }

  private instrumentAccount(): void {
    const dbs = this.account.databases;
    dbs._newItem = (data: Json) => {
      const database = new Database(data);
      if (data) this.instrumentDatabase(database);
      return database;
    };
    const create = dbs.create.bind(dbs);
    dbs.create = (data: Json) => {
      const out = create(data);
      this.write({ t: 'db', data: out, rc: dbs._ridCount });
      return out;
    };
    const remove = dbs.delete.bind(dbs);
    dbs.delete = (id: string, partition: string) => {
      remove(id, partition);
      this.write({ t: 'dropDb', id });
    };
  }

  private instrumentDatabase(database: LibDatabase): void {
    const colls = database.collections;
    const dbId = () => String(database.read()?.id);
    colls._newItem = (data: Json) => {
      const collection = new Collection(data);
      if (data) {
        const store = attachStore(collection, data);
        const coll = String(data.id);
        store.onChanges = (changes) => {
          const [only] = changes;
          if (changes.length === 1 && only) this.write({ ...only, db: dbId(), coll });
          else this.write({ t: 'batch', db: dbId(), coll, changes });
        };
      }
      return collection;
    };
    const create = colls.create.bind(colls);
    colls.create = (data: Json) => {
      const out = create(data);
      this.write({ t: 'coll', db: dbId(), data: out, rc: colls._ridCount });
      return out;
    };
    const remove = colls.delete.bind(colls);
    colls.delete = (id: string, partition: string) => {
      remove(id, partition);
      this.write({ t: 'dropColl', db: dbId(), id });
    };
    // The library replaces a container by deleting it and creating an empty one; Cosmos DB keeps its items.
    colls.replace = (data: Json, original: Json) => {
      const collection = database.collection(String(original.id));
      const current = collection.read();
      if (!current || data.id !== current.id)
        throw Object.assign(new Error('replacing id is not allowed'), { badRequest: true });
      const out: Json = {
        ...data,
        _rid: current._rid,
        _self: current._self,
        _etag: randomUUID(),
        _ts: Math.floor(Date.now() / 1000),
      };
      setCollectionData(collection, out);
      this.write({ t: 'coll', db: dbId(), data: out, rc: colls._ridCount });
      return out;
    };
  }
}
