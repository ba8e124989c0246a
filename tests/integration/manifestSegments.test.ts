/**
 * The import manifest in the store: segments written by each save (newest wins, removals kept as such),
 * compaction into a new generation, a manifest of the earlier layout (64 hash shards) read as it is and
 * replaced at the first save, and a compaction that stopped before it moved the head left without effect.
 */
import { startLocalCosmos, LOCAL_COSMOS_KEY, type LocalCosmos } from '../../devhost/cosmosServer';
import { createStore, type Store, type StoredDoc } from '../../lib/store/store';
import { setFaultInjector } from '../../devhost/cosmos/faults';
import { StoreError } from '../../lib/store/errors';
import { ImportManifest } from '../../lib/imports/manifest';

type Doc = StoredDoc & { kind: string; gen?: string };

describe('import manifest segments', () => {
  let cosmos: LocalCosmos;
  let store: Store;
  const kinds = async (pk: string) =>
    (await store.collection<Doc>('imports').queryPartitionPage<Doc>(pk, 'SELECT *', '', [])).items;

  beforeAll(async () => {
    cosmos = await startLocalCosmos({ port: 0 });
    store = createStore({ endpoint: cosmos.endpoint, key: LOCAL_COSMOS_KEY, database: 'db' });
    await store.ensureSchema();
  });
  afterAll(async () => {
    setFaultInjector(undefined);
    store?.dispose();
    await cosmos?.close();
  });

  it('a save writes only the entries it changed; the newest entry is in force, a removal stays removed', async () => {
    const pk = 't|src:Overlay';
    const first = await ImportManifest.load(store, pk);
    for (let i = 0; i < 1000; i++) first.entries.set(`E${i}`, { id: `id${i}`, hash: 'a' });
    await first.save(first.entries.keys());
    const second = await ImportManifest.load(store, pk);
    expect(second.entries.size).toBe(1000);
    second.entries.set('E1', { id: 'id1', hash: 'b' });
    second.entries.set('E2', { id: 'id2', hash: null, prev: 'a' });
    second.entries.delete('E3');
    second.entries.set('NEW', { id: 'idn', hash: 'c' });
    // Intent, then outcome: the same segment written twice.
    await second.save(['E1', 'E2', 'E3', 'NEW']);
    second.entries.set('E2', { id: 'id2', hash: 'b' });
    expect(await second.save([])).toBe(1);
    const third = await ImportManifest.load(store, pk);
    expect(third.entries.size).toBe(1000);
    expect(third.entries.get('E1')).toEqual({ id: 'id1', hash: 'b' });
    expect(third.entries.get('E2')).toEqual({ id: 'id2', hash: 'b' });
    expect(third.entries.has('E3')).toBe(false);
    expect(third.entries.get('E4')).toEqual({ id: 'id4', hash: 'a' });
    const segments = (await kinds(pk)).filter((d) => d.kind === 'manifestSegment');
    // The first save: a generation (one segment); the second: one overlay segment.
    expect(segments).toHaveLength(2);
  });

  it('many replaced entries make the next save compact into a new generation; the old one is deleted', async () => {
    const pk = 't|src:Compact';
    const m = await ImportManifest.load(store, pk);
    for (let i = 0; i < 10; i++) m.entries.set(`E${i}`, { id: `id${i}`, hash: 'a' });
    await m.save(m.entries.keys());
    for (let round = 0; round < 70; round++) {
      const r = await ImportManifest.load(store, pk);
      r.entries.set('E0', { id: 'id0', hash: `r${round}` });
      await r.save(['E0']);
    }
    const docs = await kinds(pk);
    const gens = new Set(docs.filter((d) => d.kind === 'manifestSegment').map((d) => d.gen));
    expect(gens.size).toBe(1);
    expect(docs.filter((d) => d.kind === 'manifestSegment').length).toBeLessThan(70);
    const last = await ImportManifest.load(store, pk);
    expect(last.entries.get('E0')).toEqual({ id: 'id0', hash: 'r69' });
    expect(last.entries.size).toBe(10);
  });

  it('a manifest of the earlier layout is read as it is and replaced by segments at the first save', async () => {
    const pk = 't|src:Legacy';
    const col = store.collection<Doc & { shard: number; entries: Record<string, unknown> }>('imports');
    await col.create({
      id: 'manifest-3',
      pk,
      kind: 'manifestShard',
      shard: 3,
      entries: { A: { id: 'ida', hash: 'h' } },
    });
    await col.create({
      id: 'manifest-9',
      pk,
      kind: 'manifestShard',
      shard: 9,
      entries: { B: { id: 'idb', hash: null }, C: { id: 'idc', hash: 'h' } },
    });
    const legacy = await ImportManifest.load(store, pk);
    expect([...legacy.entries].sort()).toEqual([
      ['A', { id: 'ida', hash: 'h' }],
      ['B', { id: 'idb', hash: null }],
      ['C', { id: 'idc', hash: 'h' }],
    ]);
    legacy.entries.set('D', { id: 'idd', hash: 'h' });
    await legacy.save(['D']);
    expect((await kinds(pk)).some((d) => d.kind === 'manifestShard')).toBe(false);
    const migrated = await ImportManifest.load(store, pk);
    expect([...migrated.entries.keys()].sort()).toEqual(['A', 'B', 'C', 'D']);
  });

  it('a compaction that stopped before moving the head changes nothing; its segments go at the next compaction', async () => {
    const pk = 't|src:Stopped';
    // A manifest of the earlier layout: its first save compacts.
    await store
      .collection<Doc & { entries: Record<string, unknown> }>('imports')
      .create({ id: 'manifest-1', pk, kind: 'manifestShard', entries: { A: { id: 'ida', hash: 'h' } } });
    // The compaction writes its generation, then cannot move the head.
    setFaultInjector((op, container, target) => {
      if (container === 'imports' && target?.pk === pk && target.id === 'manifest-head' && op === 'upsert')
        throw new StoreError('unavailable', 'injected', 10);
    });
    const crashing = await ImportManifest.load(store, pk);
    for (let i = 0; i < 30_000; i++) crashing.entries.set(`X${i}`, { id: `x${i}`, hash: 'h' });
    await expect(crashing.save(crashing.entries.keys())).rejects.toThrow(StoreError);
    setFaultInjector(undefined);
    const after = await ImportManifest.load(store, pk);
    expect([...after.entries.keys()]).toEqual(['A']);
    expect((await kinds(pk)).filter((d) => d.kind === 'manifestSegment').length).toBeGreaterThan(0);
    after.entries.set('B', { id: 'idb', hash: 'h' });
    await after.save(['B']);
    const cleaned = await kinds(pk);
    expect(cleaned.filter((d) => d.kind === 'manifestSegment')).toHaveLength(1);
    expect(cleaned.some((d) => d.kind === 'manifestShard')).toBe(false);
    expect([...(await ImportManifest.load(store, pk)).entries.keys()].sort()).toEqual(['A', 'B']);
  });
});
