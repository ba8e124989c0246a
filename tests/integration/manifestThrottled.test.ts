/**
 * An import manifest is saved on a store that throttles like a serverless Cosmos DB container (the
 * local engine with a request-unit budget): its segments (up to 1 MB each) go a few at a time, each
 * retried after the store's wait, instead of all at once, most of them refused more often than the store
 * client retries.
 */
import { startLocalCosmos, LOCAL_COSMOS_KEY, type LocalCosmos } from '../../devhost/cosmosServer';
import { createStore, type Store } from '../../lib/store/store';
import { ImportManifest, SEGMENT_MAX_BYTES } from '../../lib/imports/manifest';

describe('import manifest on a throttling store', () => {
  let cosmos: LocalCosmos;
  let store: Store;

  beforeAll(async () => {
    // 300 RU/s: the segments of one save (about 600 RU a megabyte) need several seconds of the container's budget.
    cosmos = await startLocalCosmos({ port: 0, ruPerSecond: 300 });
    store = createStore({ endpoint: cosmos.endpoint, key: LOCAL_COSMOS_KEY, database: 'db' });
    await store.ensureSchema();
  });
  afterAll(async () => {
    store?.dispose();
    await cosmos?.close();
  });

  it('a save that needs several seconds of the budget writes every shard', async () => {
    const pk = 'tenant|src:Big';
    const manifest = await ImportManifest.load(store, pk);
    // About three segments' worth of entries (an entry takes about 45 bytes here).
    const n = Math.ceil((3 * SEGMENT_MAX_BYTES) / 45);
    for (let i = 0; i < n; i++) manifest.entries.set(`E${i}`, { id: `id${i}`, hash: null });
    expect(await manifest.save(manifest.entries.keys())).toBeGreaterThanOrEqual(3);
    expect(cosmos.requestUnits().byContainer['db/imports']?.throttled).toBeGreaterThan(0);
    const reloaded = await ImportManifest.load(store, pk);
    expect(reloaded.entries.size).toBe(n);
  }, 60_000);
});
