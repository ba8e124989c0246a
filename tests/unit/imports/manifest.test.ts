import {
  ImportManifest,
  SEGMENT_MAX_BYTES,
  decodeEntry,
  encodeEntry,
  needsCompaction,
  segmentBodies,
  type ManifestEntry,
} from '../../../lib/imports/manifest';
import { inRange } from '../../../lib/imports/jobPlan';
import { createMemoryStore, type MemoryStore } from '../../support/memoryStore';

describe('manifest entries as segments store them', () => {
  it('round-trip: an entry, an intent with what it had before, an intent of the earlier layout, a removal', () => {
    const entries: Array<ManifestEntry | undefined> = [
      { id: 'i', hash: 'h' },
      { id: 'i', hash: null, prev: 'old' },
      { id: 'i', hash: null, prev: null },
      { id: 'i', hash: null },
      undefined,
    ];
    for (const e of entries) expect(decodeEntry(encodeEntry(e))).toEqual(e);
    expect(encodeEntry(undefined)).toBe(0);
  });

  it('cut into bodies of at most the segment size, in order, the same way each time', () => {
    const keys = Array.from({ length: 30_000 }, (_, i) => `EXT-${i}`);
    const entryOf = (k: string): ManifestEntry => ({
      id: `0190aaaa-bbbb-7ccc-8ddd-${k.padStart(12, '0')}`,
      hash: 'h'.repeat(22),
    });
    const bodies = segmentBodies(keys, entryOf);
    expect(bodies.length).toBeGreaterThan(1);
    for (const b of bodies) expect(Buffer.byteLength(JSON.stringify(b))).toBeLessThanOrEqual(SEGMENT_MAX_BYTES);
    // Compared as JSON text: a deep comparison of 30,000 entries takes seconds of the test's time.
    expect(bodies.flatMap((b) => Object.keys(b)).join('\n')).toBe(keys.join('\n'));
    expect(JSON.stringify(segmentBodies(keys, entryOf))).toBe(JSON.stringify(bodies));
    expect(segmentBodies(['a', 'b', 'c'], () => undefined, 1)).toEqual([{ a: 0 }, { b: 0 }, { c: 0 }]);
    expect(segmentBodies([], entryOf)).toEqual([]);
  });

  it('are compacted when replaced entries or segments pile up, not before', () => {
    expect(needsCompaction({ live: 1_000_000, stored: 1_000_000, segments: 80 })).toBe(false);
    expect(needsCompaction({ live: 1_000_000, stored: 2_000_000, segments: 160 })).toBe(false);
    expect(needsCompaction({ live: 1_000_000, stored: 2_100_000, segments: 170 })).toBe(true);
    expect(needsCompaction({ live: 100, stored: 100, segments: 64 })).toBe(false);
    expect(needsCompaction({ live: 100, stored: 100, segments: 66 })).toBe(true);
  });
});

/*
 * A manifest loaded in part (a job's step holds the entries of its own keys, or of one hash range) over the
 * in-memory store: it holds only its slice, its saves write only what it changed (the rest stays as stored),
 * and a compaction it triggers (or the rewrite of the earlier 64-shard layout) keeps every entry of the source.
 */
const PK = '11111111-1111-4111-8111-111111111111|src:HR';
let memory: MemoryStore;

beforeEach(() => {
  memory = createMemoryStore();
});

afterEach(() => expect(memory.indexGaps()).toEqual([]));

const ids = (n: number, prefix = 'E') => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

async function stored(keys: string[]): Promise<void> {
  const whole = await ImportManifest.load(memory.store, PK);
  for (const k of keys) whole.entries.set(k, { id: `id-${k}`, hash: 'h1' });
  await whole.save(keys);
}

const everything = async () => (await ImportManifest.load(memory.store, PK)).entries;

describe('a manifest loaded in part', () => {
  it('holds only the entries its slice keeps, the newest of each', async () => {
    await stored(ids(300));
    const later = await ImportManifest.load(memory.store, PK);
    later.entries.set('E7', { id: 'id-E7', hash: 'h2' });
    later.entries.delete('E8');
    await later.save(['E7', 'E8']);

    const wanted = new Set(['E7', 'E8', 'E9', 'NEW']);
    const slice = await ImportManifest.load(memory.store, PK, { keep: (k) => wanted.has(k) });
    expect(slice.whole).toBe(false);
    expect([...slice.entries].sort()).toEqual([
      ['E7', { id: 'id-E7', hash: 'h2' }],
      ['E9', { id: 'id-E9', hash: 'h1' }],
    ]);
    // One hash range of three: about a third of the entries, and the three ranges together are all of them.
    const sizes = await Promise.all(
      [0, 1, 2].map(async (r) => (await ImportManifest.load(memory.store, PK, { keep: inRange(r, 3) })).entries.size),
    );
    for (const size of sizes) expect(size).toBeLessThan(150);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(299);
  });

  it('writes only what it changed; every other entry stays as stored', async () => {
    await stored(ids(50));
    const slice = await ImportManifest.load(memory.store, PK, { keep: (k) => k === 'E1' || k === 'E2' });
    slice.entries.set('E1', { id: 'id-E1', hash: 'h2' });
    slice.entries.delete('E2');
    slice.entries.set('N1', { id: 'id-N1', hash: 'h1' });
    await slice.save(['E1', 'E2', 'N1']);
    const all = await everything();
    expect(all.size).toBe(50);
    expect(all.get('E1')).toEqual({ id: 'id-E1', hash: 'h2' });
    expect(all.has('E2')).toBe(false);
    expect(all.get('N1')).toEqual({ id: 'id-N1', hash: 'h1' });
    expect(all.get('E3')).toEqual({ id: 'id-E3', hash: 'h1' });
  });

  it("is a new source's whole manifest when nothing is stored yet", async () => {
    const slice = await ImportManifest.load(memory.store, PK, { keep: () => false });
    slice.entries.set('A', { id: 'id-A', hash: null, prev: null });
    await slice.save(['A']);
    slice.entries.set('A', { id: 'id-A', hash: 'h1' });
    await slice.save(['A']);
    expect([...(await everything())]).toEqual([['A', { id: 'id-A', hash: 'h1' }]]);
  });

  it('compacts with every entry of the source when segments pile up, its own changes on top', async () => {
    // 70 segments of one entry each: more segments than 40 entries need.
    memory.writeNow('imports', { id: 'manifest-head', pk: PK, kind: 'manifestHead', gen: 'g1' });
    for (let seq = 0; seq < 70; seq++)
      memory.writeNow('imports', {
        id: `manifest-g1-${String(seq).padStart(6, '0')}`,
        pk: PK,
        kind: 'manifestSegment',
        gen: 'g1',
        seq,
        entries: { [`E${seq % 40}`]: [`id-E${seq % 40}`, 'h1'] },
      });
    const slice = await ImportManifest.load(memory.store, PK, { keep: (k) => k === 'E0', live: 40 });
    slice.entries.set('E0', { id: 'id-E0', hash: 'h2' });
    const segmentsBefore = memory.documents<{ kind: string; gen: string }>('imports', PK);
    await slice.save(['E0']);
    const gens = (docs: Array<{ kind: string; gen: string }>) =>
      new Set(docs.filter((d) => d.kind === 'manifestSegment').map((d) => d.gen));
    const after = memory.documents<{ kind: string; gen: string }>('imports', PK);
    expect([...gens(after)]).toHaveLength(1);
    expect(gens(after)).not.toEqual(gens(segmentsBefore));
    const all = await everything();
    expect(all.size).toBe(40);
    expect(all.get('E0')).toEqual({ id: 'id-E0', hash: 'h2' });
    expect(all.get('E39')).toEqual({ id: 'id-E39', hash: 'h1' });
    // The next save of the same load writes on top of the new generation.
    slice.entries.set('E0', { id: 'id-E0', hash: 'h3' });
    await slice.save([]);
    expect((await everything()).get('E0')).toEqual({ id: 'id-E0', hash: 'h3' });
  });

  it('rewrites a manifest of the earlier layout (hash shards) whole at its first save, keeping every entry', async () => {
    memory.writeNow('imports', {
      id: 'manifest-3',
      pk: PK,
      kind: 'manifestShard',
      entries: { A: { id: 'ida', hash: 'h' }, B: { id: 'idb', hash: 'h' } },
    });
    memory.writeNow('imports', {
      id: 'manifest-9',
      pk: PK,
      kind: 'manifestShard',
      entries: { C: { id: 'idc', hash: 'h' } },
    });
    const slice = await ImportManifest.load(memory.store, PK, { keep: (k) => k === 'B' });
    expect([...slice.entries.keys()]).toEqual(['B']);
    slice.entries.set('B', { id: 'idb', hash: 'h2' });
    await slice.save(['B']);
    const docs = memory.documents<{ kind: string }>('imports', PK);
    expect(docs.some((d) => d.kind === 'manifestShard')).toBe(false);
    expect([...(await everything())].sort()).toEqual([
      ['A', { id: 'ida', hash: 'h' }],
      ['B', { id: 'idb', hash: 'h2' }],
      ['C', { id: 'idc', hash: 'h' }],
    ]);
  });
});
