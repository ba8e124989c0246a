/**
 * Per-source import manifest: externalId -> { identity id, content hash }, so that a re-import reads the
 * manifest and writes only what changed.
 *
 * Stored as segments, log-structured: a save writes one new segment (or a few, each under
 * SEGMENT_MAX_BYTES) holding only the entries it changed, and a newer segment's entry replaces an older
 * one's (a tombstone removes it). A step of a staged import that writes 20,000 identities therefore writes
 * about 1.5 MB of manifest, whatever the size of the source; hash-sharded documents would each be touched
 * by such a step, so every step would rewrite the whole manifest (80 MB at 1,000,000 identities).
 * When segments hold many replaced entries, or are many, a save compacts: it writes the live entries into a
 * new generation of segments, points the head document at it, and deletes the old generation. A crash
 * before the head moves leaves the old generation in force; the new one's segments are garbage, deleted
 * by the next compaction.
 *
 * Item sizes: a segment is at most SEGMENT_MAX_BYTES (1 MB) of JSON, half of Cosmos DB's 2 MB item limit;
 * 1,000,000 entries of typical externalIds take about 80 segments (about 80 bytes an entry).
 * Manifests of the earlier layout (64 hash shards, kind `manifestShard`) are read as they are; the first
 * save compacts them into segments and deletes the shards.
 *
 * A load may keep only a slice of the manifest (`keep`: the keys a job's step compares, or one hash range of
 * them): it streams every segment and holds only the entries kept, so a step's memory follows its slice, not
 * the source's size. Such a partial manifest writes its changes as a whole one does; only a compaction (or the
 * rewrite of the earlier layout) needs every entry, and loads the manifest whole for it, once.
 */
import type { Store, StoredDoc } from '../store/store';
import { forEachBounded } from '../util/concurrency';
import { RETRY, retrying } from '../store/retryPolicy';
import { uuid7 } from '../util/uuid7';
import { legacyManifestShards, manifestSegments } from '../store/queries/imports';

/**
 * Documents written at once. A segment is a large item (hundreds of RU to write), and many at once on a
 * throttled container leave most of them refused more often than the store client retries; a few at a
 * time, each retried after the store's wait, go through.
 */
export const MANIFEST_WRITE_PARALLELISM = 4;
/** The largest segment, in bytes of JSON (Cosmos DB allows 2 MB per item). */
export const SEGMENT_MAX_BYTES = 1_000_000;
/** Segments read per query page (pages stay a few MB, so loading holds little besides the entries). */
const SEGMENTS_PER_PAGE = 4;
const HEAD_ID = 'manifest-head';

/** `hash` is null while a write for the entry may be under way (written before the identity). */
export interface ManifestEntry {
  id: string;
  hash: string | null;
  /**
   * On an entry whose write may be under way: the hash it had before (null: the identity was new to the
   * source), so that a run repeating the write after a crash counts it as created or updated, not unchanged.
   */
  prev?: string | null;
}

/** An entry as a segment stores it: [id, hash] or [id, null, prev]; 0 = removed. */
export type StoredEntry = [string, string | null] | [string, null, string | null] | 0;

interface SegmentDoc extends StoredDoc {
  kind: 'manifestSegment';
  gen: string;
  seq: number;
  entries: Record<string, StoredEntry>;
}

interface HeadDoc extends StoredDoc {
  kind: 'manifestHead';
  gen: string;
}

/** The earlier layout: one of 64 documents by a hash of the externalId. */
interface LegacyShardDoc extends StoredDoc {
  kind: 'manifestShard';
  entries: Record<string, ManifestEntry>;
}

export function importPartition(tenantId: string, source: string): string {
  return `${tenantId}|${source}`;
}

export function encodeEntry(entry: ManifestEntry | undefined): StoredEntry {
  if (!entry) return 0;
  if (entry.hash === null && entry.prev !== undefined) return [entry.id, null, entry.prev];
  return [entry.id, entry.hash];
}

export function decodeEntry(stored: StoredEntry): ManifestEntry | undefined {
  if (stored === 0) return undefined;
  if (stored.length === 3) return { id: stored[0], hash: null, prev: stored[2] };
  return { id: stored[0], hash: stored[1] };
}

/** JSON bytes an entry adds to a segment (its key, its value, quotes, colon, comma). */
function entryBytes(externalId: string, stored: StoredEntry): number {
  return Buffer.byteLength(JSON.stringify(externalId), 'utf8') + Buffer.byteLength(JSON.stringify(stored)) + 2;
}

/**
 * Cuts entries into segment bodies of at most `maxBytes` of JSON each, in the order given. The same keys
 * with entries of the same sizes give the same cut.
 */
export function segmentBodies(
  keys: Iterable<string>,
  entryOf: (externalId: string) => ManifestEntry | undefined,
  maxBytes = SEGMENT_MAX_BYTES,
): Array<Record<string, StoredEntry>> {
  const bodies: Array<Record<string, StoredEntry>> = [];
  let current = Object.create(null) as Record<string, StoredEntry>;
  let bytes = 0;
  let count = 0;
  for (const key of keys) {
    const stored = encodeEntry(entryOf(key));
    const size = entryBytes(key, stored);
    if (count > 0 && bytes + size > maxBytes) {
      bodies.push(current);
      current = Object.create(null) as Record<string, StoredEntry>;
      bytes = 0;
      count = 0;
    }
    current[key] = stored;
    bytes += size;
    count++;
  }
  if (count > 0) bodies.push(current);
  return bodies;
}

const segmentId = (gen: string, seq: number) => `manifest-${gen}-${String(seq).padStart(6, '0')}`;

/** Whether the stored segments carry so much that a compaction pays for itself on the next loads. */
export function needsCompaction(stats: { live: number; stored: number; segments: number }): boolean {
  // Replaced entries beyond the live ones, or many more segments than the live entries need.
  return stats.stored > 2 * stats.live + 20_000 || stats.segments > 64 + Math.ceil(stats.live / 2_000);
}

/** What of the manifest a load keeps: every entry, or those whose externalId `keep` accepts. */
export interface ManifestSlice {
  keep?: (externalId: string) => boolean;
  /**
   * The source's identities after the writes of this load (a partial load cannot count them): what tells
   * whether the segments hold so many replaced entries that a save compacts them.
   */
  live?: number;
}

export class ImportManifest {
  /** Entries changed since the load, written by every save (a later save rewrites the same segments). */
  private readonly dirty = new Set<string>();
  /** Where this instance's overlay segments start, once its first save chose it. */
  private writeSeq: number | undefined;
  private written = 0;

  private constructor(
    private readonly store: Store,
    private readonly pk: string,
    readonly entries: Map<string, ManifestEntry>,
    /** The generation in force; undefined when no head exists (a new source, or the earlier layout). */
    private gen: string | undefined,
    private nextSeq: number,
    private stats: { stored: number; segments: number },
    /** Documents a compaction deletes: segments of other generations, shards of the earlier layout. */
    private obsolete: string[],
    /** Set when the load kept a slice of the entries (the rest are stored, not held). */
    private readonly slice?: ManifestSlice,
  ) {}

  /** Whether this load holds every entry of the source (not a slice). */
  get whole(): boolean {
    return this.slice?.keep === undefined;
  }

  static async load(store: Store, pk: string, slice?: ManifestSlice): Promise<ImportManifest> {
    const keep = slice?.keep;
    const col = store.collection<SegmentDoc | HeadDoc | LegacyShardDoc>('imports');
    const segmentDocs = store.collection<SegmentDoc>('imports');
    const shardDocs = store.collection<LegacyShardDoc>('imports');
    const head = await retrying(RETRY.background, () => col.read(pk, HEAD_ID));
    const gen = head?.kind === 'manifestHead' ? head.gen : undefined;
    const entries = new Map<string, ManifestEntry>();
    const removed = new Set<string>();
    const obsolete: string[] = [];
    let stored = 0;
    let segments = 0;
    let nextSeq = 0;
    // Newest first: the first entry seen for a key is the one in force.
    let continuationToken: string | undefined;
    do {
      const page = await retrying(RETRY.background, () =>
        segmentDocs.page(manifestSegments(pk), { maxItemCount: SEGMENTS_PER_PAGE, continuationToken }),
      );
      for (const doc of page.items) {
        if (doc.gen !== gen) {
          obsolete.push(doc.id);
          continue;
        }
        segments++;
        nextSeq = Math.max(nextSeq, doc.seq + 1);
        for (const key in doc.entries) {
          stored++;
          if ((keep && !keep(key)) || entries.has(key) || removed.has(key)) continue;
          const entry = decodeEntry(doc.entries[key] as StoredEntry);
          if (entry) entries.set(key, entry);
          else removed.add(key);
        }
      }
      continuationToken = page.continuationToken;
    } while (continuationToken);
    if (gen === undefined) {
      // No head: the source is new, or its manifest is in the earlier layout (read as it is, replaced at the first save).
      let legacyToken: string | undefined;
      do {
        const page = await retrying(RETRY.background, () =>
          shardDocs.page(legacyManifestShards(pk), {
            maxItemCount: SEGMENTS_PER_PAGE * 4,
            continuationToken: legacyToken,
          }),
        );
        for (const doc of page.items) {
          obsolete.push(doc.id);
          for (const [k, v] of Object.entries(doc.entries)) if (!keep || keep(k)) entries.set(k, v);
        }
        legacyToken = page.continuationToken;
      } while (legacyToken);
    }
    return new ImportManifest(store, pk, entries, gen, nextSeq, { stored, segments }, obsolete, slice);
  }

  /**
   * Records the entries of `changedExternalIds` (their state in `entries`; absent = removed). Every save of
   * this instance rewrites all entries changed since the load into the same segments, so an intent saved
   * before the writes is replaced by the outcome saved after them. Returns the documents written.
   */
  async save(changedExternalIds: Iterable<string>): Promise<number> {
    for (const id of changedExternalIds) this.dirty.add(id);
    if (this.dirty.size === 0) return 0;
    const live = this.whole ? this.entries.size : (this.slice?.live ?? this.stats.stored);
    if (
      this.gen === undefined ||
      needsCompaction({ live, stored: this.stats.stored + this.dirty.size, segments: this.stats.segments + 1 })
    )
      return this.whole ? this.compact() : this.compactWhole();
    if (this.obsolete.length > 0) {
      // Left by a compaction that stopped after moving the head: no load uses them, each load reads them.
      await this.deleteDocs(this.obsolete);
      this.obsolete = [];
    }
    const bodies = segmentBodies(this.dirty, (k) => this.entries.get(k));
    const start = (this.writeSeq ??= this.nextSeq);
    const gen = this.gen;
    await this.writeSegments(gen, start, bodies);
    // A previous save of this instance may have needed one segment more (entries change size): drop it, it is older news.
    const extra = Array.from({ length: Math.max(0, this.written - bodies.length) }, (_, i) =>
      segmentId(gen, start + bodies.length + i),
    );
    await this.deleteDocs(extra);
    if (bodies.length > this.written) {
      this.stats.segments += bodies.length - this.written;
      this.nextSeq = start + bodies.length;
    }
    this.written = bodies.length;
    return bodies.length;
  }

  /**
   * The compaction of a partial load: a new source's first save (nothing else is stored: the slice is every
   * entry), or else the manifest loaded whole, this load's changes laid over it and compacted; this load then
   * writes on top of the new generation.
   */
  private async compactWhole(): Promise<number> {
    if (this.gen === undefined && this.stats.segments === 0 && this.obsolete.length === 0) return this.compact();
    const whole = await ImportManifest.load(this.store, this.pk);
    for (const key of this.dirty) {
      const entry = this.entries.get(key);
      if (entry) whole.entries.set(key, entry);
      else whole.entries.delete(key);
    }
    const written = await whole.compact();
    this.gen = whole.gen;
    this.nextSeq = whole.nextSeq;
    this.stats = { ...whole.stats };
    this.obsolete = [];
    this.writeSeq = undefined;
    this.written = 0;
    return written;
  }

  /** Writes the live entries as a new generation, moves the head to it, and deletes what it replaces. */
  private async compact(): Promise<number> {
    const gen = uuid7();
    const bodies = segmentBodies(this.entries.keys(), (k) => this.entries.get(k));
    await this.writeSegments(gen, 0, bodies);
    const col = this.store.collection<HeadDoc>('imports');
    await retrying(RETRY.background, () => col.upsert({ id: HEAD_ID, pk: this.pk, kind: 'manifestHead', gen }));
    const previous = this.gen;
    const replaced = [
      ...this.obsolete,
      ...Array.from({ length: previous === undefined ? 0 : this.nextSeq }, (_, i) => segmentId(previous ?? '', i)),
    ];
    this.gen = gen;
    this.nextSeq = bodies.length;
    this.writeSeq = undefined;
    this.written = 0;
    this.stats = { stored: this.entries.size, segments: bodies.length };
    this.obsolete = [];
    // Left over (a failure here): older generations are ignored by every load and deleted by the next compaction.
    await this.deleteDocs(replaced).catch(() => undefined);
    // The entries changed since the load are in the new generation; the next save writes them again on top.
    return bodies.length + 1;
  }

  private async writeSegments(gen: string, start: number, bodies: Array<Record<string, StoredEntry>>): Promise<void> {
    const col = this.store.collection<SegmentDoc>('imports');
    await forEachBounded(bodies, MANIFEST_WRITE_PARALLELISM, async (entries, i) => {
      const seq = start + i;
      await retrying(RETRY.background, () =>
        col.upsert({ id: segmentId(gen, seq), pk: this.pk, kind: 'manifestSegment', gen, seq, entries }),
      );
    });
  }

  private async deleteDocs(ids: string[]): Promise<void> {
    const col = this.store.collection<SegmentDoc>('imports');
    await forEachBounded(ids, MANIFEST_WRITE_PARALLELISM, async (id) => {
      await retrying(RETRY.background, () => col.delete(this.pk, id));
    });
  }
}
