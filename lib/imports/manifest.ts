/**
 * Per-source import manifest: externalId -> { identity id, content hash }, sharded into a fixed
 * number of documents so that a re-import reads O(shards) documents, and each stays far below
 * the 2 MB item limit (200,000 entries ≈ 16 MB over 64 shards ≈ 250 KB each).
 */
import { createHash } from 'node:crypto';
import type { Store, StoredDoc } from '../store/store';
import { forEachBounded, withThrottleRetry } from '../util/concurrency';

export const MANIFEST_SHARDS = 64;
/**
 * Shards written at once. A shard of a large source is a large item (hundreds of RU to write), and
 * 64 at once on a throttled container leave most of them refused more often than the store client
 * retries; a few at a time, each retried after the store's wait, go through.
 */
export const MANIFEST_WRITE_PARALLELISM = 4;

/** `hash` is null while a write for the entry may be under way (written before the identity). */
export interface ManifestEntry {
  id: string;
  hash: string | null;
}

interface ManifestShardDoc extends StoredDoc {
  kind: 'manifestShard';
  shard: number;
  entries: Record<string, ManifestEntry>;
}

export function shardOf(externalId: string): number {
  return createHash('md5').update(externalId).digest().readUInt16BE(0) % MANIFEST_SHARDS;
}

export function importPartition(tenantId: string, source: string): string {
  return `${tenantId}|${source}`;
}

export class ImportManifest {
  private constructor(
    private readonly store: Store,
    private readonly pk: string,
    readonly entries: Map<string, ManifestEntry>,
  ) {}

  static async load(store: Store, pk: string): Promise<ImportManifest> {
    const docs = await store
      .collection<ManifestShardDoc>('imports')
      .queryPartitionPage<ManifestShardDoc>(pk, 'SELECT *', "c.kind = 'manifestShard'", [], {
        maxItemCount: MANIFEST_SHARDS,
      });
    const entries = new Map<string, ManifestEntry>();
    for (const d of docs.items) for (const [k, v] of Object.entries(d.entries)) entries.set(k, v);
    return new ImportManifest(store, pk, entries);
  }

  /** Writes the shards whose content differs from `before` (or every shard touched by `changedIds`). */
  async save(changedExternalIds: Iterable<string>): Promise<number> {
    const shards = new Set<number>();
    for (const id of changedExternalIds) shards.add(shardOf(id));
    if (shards.size === 0) return 0;
    const byShard = new Map<number, Record<string, ManifestEntry>>();
    for (const s of shards) byShard.set(s, Object.create(null) as Record<string, ManifestEntry>);
    for (const [externalId, entry] of this.entries) {
      const target = byShard.get(shardOf(externalId));
      if (target) target[externalId] = entry;
    }
    const col = this.store.collection<ManifestShardDoc>('imports');
    await forEachBounded([...byShard], MANIFEST_WRITE_PARALLELISM, async ([shard, entries]) => {
      await withThrottleRetry(() =>
        col.upsert({ id: `manifest-${shard}`, pk: this.pk, kind: 'manifestShard', shard, entries }),
      );
    });
    return shards.size;
  }
}
