/**
 * The store paces bulk work by what the real store reports: the request charges of the SDK's responses, and
 * the 429s it met (waited out by the SDK, or handed back to a caller that retries itself). Against the local
 * engine with a small request-unit budget.
 */
import { startLocalCosmos, LOCAL_COSMOS_KEY, type LocalCosmos } from '../../devhost/cosmosServer';
import { createStore, type Store } from '../../lib/store/store';
import { RequestUnitPacer } from '../../lib/store/requestUnitPacing';
import { atHighPriority, atLowPriority } from '../../lib/store/priority';
import { diffCounters, storeCounters } from '../../lib/store/metrics';
import { isStoreError } from '../../lib/store/errors';

const TENANT = 'pacing-tenant';
type Doc = { id: string; pk: string; filler: string };
const docOf = (i: number) => ({ id: `p${i}`, pk: `${TENANT}|src`, filler: 'x'.repeat(10 * 1024) });

describe('store: bulk work paced by request units', () => {
  let cosmos: LocalCosmos;
  let store: Store;
  let pacer: RequestUnitPacer;

  const open = async (ruPerSecond: number | undefined, limits: { tenant: number; instance: number }) => {
    cosmos = await startLocalCosmos({ port: 0, ruPerSecond });
    pacer = new RequestUnitPacer({
      tenantRequestUnitsPerSecond: limits.tenant,
      instanceRequestUnitsPerSecond: limits.instance,
    });
    store = createStore({ endpoint: cosmos.endpoint, key: LOCAL_COSMOS_KEY, database: 'db' }, pacer);
    await store.ensureSchema();
  };
  afterEach(async () => {
    store?.dispose();
    await cosmos?.close();
  });

  it('charges each low-priority request what the store reported, and leaves high-priority requests alone', async () => {
    await open(undefined, { tenant: 1_000_000, instance: 1_000_000 });
    const identities = store.collection<Doc>('audit');
    const before = storeCounters();
    await atLowPriority(async () => {
      await identities.create(docOf(1));
      await identities.batchCreate(`${TENANT}|src`, [docOf(2), docOf(3)]);
      await identities.read(`${TENANT}|src`, 'p1');
    }, TENANT);
    await atHighPriority(() => identities.read(`${TENANT}|src`, 'p1'));
    const ops = diffCounters(storeCounters(), before);
    expect(ops.pacedOperations).toBe(3);
    // What the SDK reported for the three low-priority requests (the high-priority read not among them).
    const lowCharged = cosmos.requestUnits().lowCharged;
    expect(ops.pacedRequestCharge).toBeCloseTo(lowCharged, 1);
    expect(pacer.stats()[TENANT]?.charged).toBeCloseTo(lowCharged, 1);
    expect(ops.requestCharge).toBeGreaterThan(ops.pacedRequestCharge);
  });

  it('a burst beyond its budget waits: the tenant spends about its rate, not what the store could take', async () => {
    await open(undefined, { tenant: 200, instance: 200 });
    const identities = store.collection<Doc>('audit');
    const started = performance.now();
    // 30 writes of about 8 RU at once (the store alone would take them at once).
    await atLowPriority(() => Promise.all(Array.from({ length: 30 }, (_, i) => identities.create(docOf(i)))), TENANT);
    const seconds = (performance.now() - started) / 1000;
    const charged = cosmos.requestUnits().lowCharged;
    expect(charged).toBeGreaterThan(200);
    // A 100 RU burst, then 200 RU/s: it cannot have finished sooner.
    expect(seconds).toBeGreaterThanOrEqual((charged - 100 - 20) / 200);
    expect(pacer.stats()[TENANT]?.waited).toBeGreaterThan(0);
  });

  it('429s the SDK waited out halve the tenant rate; a 429 handed back pauses its bulk work for the retry-after', async () => {
    // 20 RU/s: ten 10 KB writes at once are five times the second's budget.
    await open(20, { tenant: 1_000, instance: 1_000 });
    const identities = store.collection<Doc>('audit');
    await atLowPriority(() => Promise.all(Array.from({ length: 10 }, (_, i) => identities.create(docOf(i)))), TENANT);
    expect(cosmos.requestUnits().lowThrottled).toBeGreaterThan(0);
    expect(pacer.stats()[TENANT]?.throttled).toBeGreaterThan(0);
    expect(pacer.rateOf(TENANT)).toBeLessThan(1_000);

    // A write that does not wait out throttling itself: refused at once, and the tenant's next request waits.
    // A 200 KB write at high priority leaves the container in debt for seconds.
    await identities.create({ ...docOf(100), filler: 'x'.repeat(200 * 1024) });
    const refused = await atLowPriority(
      () => identities.create(docOf(101), { retryThrottled: false }).catch((e: unknown) => e),
      TENANT,
    );
    expect(isStoreError(refused, 'throttled')).toBe(true);
    const before = storeCounters();
    await atLowPriority(() => identities.read(`${TENANT}|src`, 'p1'), TENANT);
    const waited = diffCounters(storeCounters(), before);
    expect(waited.pacedWaits).toBe(1);
    expect(waited.pacedWaitMs).toBeGreaterThan(0);
  });
});
