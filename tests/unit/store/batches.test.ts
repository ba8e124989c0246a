import { MAX_BATCH_OPERATIONS, splitForBatches } from '../../../lib/store/batches';

const doc = (i: number, pad = 0) => ({ id: `d${i}`, pad: 'x'.repeat(pad) });

describe('splitForBatches', () => {
  it('returns no groups for no documents', () => {
    expect(splitForBatches([])).toEqual([]);
  });

  it('cuts at the operation limit and keeps the order', () => {
    const docs = Array.from({ length: 250 }, (_, i) => doc(i));
    const groups = splitForBatches(docs);
    expect(groups.map((g) => g.length)).toEqual([MAX_BATCH_OPERATIONS, MAX_BATCH_OPERATIONS, 50]);
    expect(groups.flat()).toEqual(docs);
  });

  it('cuts before a document that would take the group over the byte limit', () => {
    const size = Buffer.byteLength(JSON.stringify(doc(0, 100)));
    const groups = splitForBatches(
      Array.from({ length: 5 }, (_, i) => doc(i, 100)),
      100,
      size * 2,
    );
    expect(groups.map((g) => g.length)).toEqual([2, 2, 1]);
  });

  it('counts bytes, not characters', () => {
    const wide = { id: 'æøå'.repeat(10) };
    const bytes = Buffer.byteLength(JSON.stringify(wide));
    expect(splitForBatches([wide, wide], 100, bytes + 10)).toHaveLength(2);
    expect(splitForBatches([wide, wide], 100, bytes * 2)).toHaveLength(1);
  });

  it('puts a document larger than the limit in a group of its own', () => {
    const groups = splitForBatches([doc(0), doc(1, 5000), doc(2)], 100, 1000);
    expect(groups.map((g) => g.map((d) => d.id))).toEqual([['d0'], ['d1'], ['d2']]);
  });
});
