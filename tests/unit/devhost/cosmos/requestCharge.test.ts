/** The local engine's request-unit model (Microsoft's published figures) and its per-container budget. */
import { CONTAINERS } from '../../../../lib/store/containers';
import { Engine, storeOf } from '../../../../devhost/cosmos/engine';
import { withMeter } from '../../../../devhost/cosmos/chargeMeter';
import {
  createCharge,
  deleteCharge,
  indexTerms,
  pointReadCharge,
  queryPageCharge,
  replaceCharge,
  sizeOf,
  writeChargeOfSize,
} from '../../../../devhost/cosmos/requestCharge';
import { Throughput } from '../../../../devhost/cosmos/throughput';

/** An item of exactly `bytes` JSON bytes with three scalar properties (id, pk, text). */
function itemOf(bytes: number, id = 'a'): Record<string, unknown> {
  const bare = { id, pk: 'p', text: '' };
  const doc = { ...bare, text: 'x'.repeat(bytes - sizeOf(bare)) };
  expect(sizeOf(doc)).toBe(bytes);
  return doc;
}

describe('request-unit model', () => {
  it('a point read of a 1 KB item is 1 RU; a larger item costs more (64 KB: 4.76 RU, 128 KB: 9.95 RU)', () => {
    expect(pointReadCharge(itemOf(1024))).toBe(1);
    expect(pointReadCharge(itemOf(300))).toBe(1);
    expect(pointReadCharge(itemOf(64 * 1024))).toBeCloseTo(4.76, 2);
    expect(pointReadCharge(itemOf(128 * 1024))).toBeCloseTo(9.95, 2);
    expect(pointReadCharge(itemOf(100 * 1024))).toBeGreaterThan(pointReadCharge(itemOf(64 * 1024)));
  });

  it('a write costs more than a read: 4.95 RU for 1 KB plus 0.2 RU per indexed term', () => {
    const doc = itemOf(1024);
    expect(indexTerms(doc)).toHaveLength(3);
    expect(createCharge(doc)).toBeCloseTo(4.95 + 3 * 0.2, 5);
    expect(createCharge(doc)).toBeGreaterThan(pointReadCharge(doc) * 4);
    expect(deleteCharge(doc)).toBeCloseTo(createCharge(doc), 5);
    expect(createCharge(itemOf(16 * 1024))).toBeCloseTo(9.52 + 0.6, 5);
  });

  it('counts indexed terms by the container policy: queried paths only, composites, id always, system properties never', () => {
    const policy = CONTAINERS.identities.indexingPolicy;
    const doc = {
      id: 'i',
      pk: 'p',
      externalIdKey: 'e',
      names: { first: 'A', last: 'B' },
      tags: ['x', 'y'],
      link: { status: 'linked', userId: 'u' },
      personalNumbers: [{ type: 'DK_CPR', value: '0101851234' }],
      _etag: 'e',
      _ts: 1,
    };
    expect(indexTerms(doc, policy).sort()).toEqual([
      '#0=["linked","i"]',
      'externalIdKey="e"',
      'id="i"',
      'link/status="linked"',
      'pk="p"',
    ]);
    expect(indexTerms(doc, { indexingMode: 'none' })).toEqual([]);
    expect(indexTerms(doc).sort()).toEqual([
      'externalIdKey="e"',
      'id="i"',
      'link/status="linked"',
      'link/userId="u"',
      'names/first="A"',
      'names/last="B"',
      'personalNumbers/[]/type="DK_CPR"',
      'personalNumbers/[]/value="0101851234"',
      'pk="p"',
      'tags/[]="x"',
      'tags/[]="y"',
    ]);
    expect(indexTerms(doc, { includedPaths: [{ path: '/names/*' }], excludedPaths: [{ path: '/*' }] }).sort()).toEqual([
      'id="i"',
      'names/first="A"',
      'names/last="B"',
    ]);
  });

  it('a replace that changes a composite index path pays for the composite term too', () => {
    const policy = CONTAINERS.identities.indexingPolicy;
    const old = { id: 'i', pk: 'p', link: { status: 'pending' }, note: 'x' };
    const size = writeChargeOfSize(sizeOf(old)) * 2;
    expect(replaceCharge(old, { ...old, note: 'y' }, policy)).toBeCloseTo(size, 5);
    // link/status old and new, and the (link/status, id) composite old and new.
    expect(replaceCharge(old, { ...old, link: { status: 'linked' } }, policy)).toBeCloseTo(size + 4 * 0.2, 5);
  });

  it('a replace deletes and inserts the item (size charge twice) plus the index terms that changed', () => {
    const old = itemOf(1024);
    const same = { ...old, text: 'y'.repeat(String(old.text).length) };
    expect(replaceCharge(old, same)).toBeCloseTo(2 * 4.95 + 2 * 0.2, 5);
    const extra = { ...same, added: 1 };
    expect(replaceCharge(old, extra)).toBeGreaterThan(replaceCharge(old, same));
  });

  it('a query page is 1 RU plus a point read per item returned', () => {
    expect(queryPageCharge([])).toBe(1);
    expect(queryPageCharge([itemOf(1024, 'a'), itemOf(64 * 1024, 'b')])).toBeCloseTo(1 + 1 + 4.76, 2);
  });

  it('the engine meters each write and a batch as the sum of its operations', () => {
    const engine = new Engine('127.0.0.1', 1);
    engine.account.databases.create({ id: 'db' });
    const db = engine.account.database('db');
    db.collections.create({ ...CONTAINERS.identities, id: 'c' });
    const store = storeOf(db.collection('c'))!;
    const policy = CONTAINERS.identities.indexingPolicy;
    const one = withMeter(() => store.create({ id: 'a', pk: 'p', externalIdKey: 'a', userNameKey: 'a', n: 1 }));
    expect(one.meter.ru).toBeCloseTo(createCharge(one.result, policy), 5);
    const both = withMeter(() => {
      let b: Record<string, unknown> = {};
      store.transaction(() => {
        b = store.create({ id: 'b', pk: 'p', externalIdKey: 'b', userNameKey: 'b', n: 2 });
        store.delete('a', 'p');
        return true;
      });
      return b;
    });
    expect(both.meter.ru).toBeCloseTo(createCharge(both.result, policy) + deleteCharge(one.result, policy), 5);
    // `n` is not a queried path: replacing it costs the size charge only.
    expect(withMeter(() => store.replace({ ...both.result, n: 3 }, both.result)).meter.ru).toBeCloseTo(2 * 4.95, 5);
  });
});

describe('request-unit budget per container', () => {
  it("admits while the second's budget lasts, then refuses until the window in which the excess is paid off", () => {
    let now = 0;
    const t = new Throughput(100, { now: () => now });
    expect(t.admit('db/c')).toBeUndefined();
    t.charge('db/c', 150);
    expect(t.admit('db/c')).toBe(1000);
    expect(t.admit('db/other')).toBeUndefined();
    now = 400;
    expect(t.admit('db/c')).toBe(600);
    // Next second: the 50 RU taken beyond the first second's budget count against it.
    now = 1000;
    expect(t.admit('db/c')).toBeUndefined();
    t.charge('db/c', 60);
    expect(t.admit('db/c')).toBe(1000);
    // A charge far beyond the budget keeps the container refused for as many seconds as it takes.
    now = 2500;
    t.charge('db/c', 390);
    expect(t.admit('db/c')).toBe(3500);
    // However long it was idle, a window offers one second's budget.
    now = 60_000;
    expect(t.admit('db/c')).toBeUndefined();
    t.charge('db/c', 100);
    expect(t.admit('db/c')).toBe(1000);
    const usage = t.usage();
    expect(usage.charged).toBeCloseTo(700, 5);
    expect([usage.requests, usage.throttled]).toEqual([4, 5]);
    expect(usage.byContainer['db/other']).toEqual({
      charged: 0,
      requests: 0,
      throttled: 0,
      lowRequests: 0,
      lowThrottled: 0,
      lowCharged: 0,
    });
  });

  it('without a budget it never refuses but still counts the charges', () => {
    const t = new Throughput(undefined);
    t.charge('db/c', 1e9);
    expect(t.admit('db/c')).toBeUndefined();
    expect(t.usage().charged).toBe(1e9);
  });
});
