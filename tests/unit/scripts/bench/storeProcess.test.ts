/** The store engine's heap limit in benchmarks: large enough for the identities a run stores, or as set. */
import { storeHeapMb } from '../../../../scripts/bench/storeProcess';

describe('storeHeapMb', () => {
  const set = process.env.BENCH_STORE_HEAP_MB;
  afterEach(() => {
    if (set === undefined) delete process.env.BENCH_STORE_HEAP_MB;
    else process.env.BENCH_STORE_HEAP_MB = set;
  });

  it('is 6,144 MB up to a million identities, 4 KB an identity above 2 GB beyond, at most 16 GB', () => {
    delete process.env.BENCH_STORE_HEAP_MB;
    expect(storeHeapMb()).toBe(6144);
    expect(storeHeapMb(1_000_000)).toBe(6144);
    expect(storeHeapMb(3_000_000)).toBe(2048 + 11_719);
    expect(storeHeapMb(10_000_000)).toBe(16_384);
  });

  it('is BENCH_STORE_HEAP_MB when set', () => {
    process.env.BENCH_STORE_HEAP_MB = '2048';
    expect(storeHeapMb(3_000_000)).toBe(2048);
  });
});
