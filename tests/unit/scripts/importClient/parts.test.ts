import { ENVELOPE_BYTES, ItemTooLarge, jsonSizes, planParts } from '../../../../scripts/importClient/parts';

/** The body bytes of a part as the client sends it: the envelope, the items and a comma each. */
const bodyBytes = (sizes: number[], start: number, end: number) =>
  ENVELOPE_BYTES + sizes.slice(start, end).reduce((n, s) => n + s + 1, 0);

describe('cutting a set into parts', () => {
  it('cuts by the number of items when the items are small', () => {
    const parts = planParts(new Array<number>(5_001).fill(100), { maxItems: 2_000, maxBytes: 8 * 1024 * 1024 });
    expect(parts).toEqual([
      { sequence: 1, start: 0, end: 2_000 },
      { sequence: 2, start: 2_000, end: 4_000 },
      { sequence: 3, start: 4_000, end: 5_001 },
    ]);
  });

  it('cuts by bytes when the items are large: every body stays within the limit', () => {
    const sizes = Array.from({ length: 3_000 }, (_, i) => 3_000 + (i % 7) * 1_000);
    const maxBytes = 8 * 1024 * 1024;
    const parts = planParts(sizes, { maxItems: 2_000, maxBytes });
    expect(parts.length).toBeGreaterThan(2);
    for (const p of parts) {
      expect(bodyBytes(sizes, p.start, p.end)).toBeLessThanOrEqual(maxBytes);
      expect(p.end - p.start).toBeLessThanOrEqual(2_000);
    }
    // Greedy: one more item would not have fitted.
    for (const p of parts.slice(0, -1)) expect(bodyBytes(sizes, p.start, p.end + 1)).toBeGreaterThan(maxBytes);
    // Every item once, in order, sequences 1, 2, 3, …
    expect(parts.map((p) => p.sequence)).toEqual(parts.map((_, i) => i + 1));
    expect(parts.every((p, i) => p.start === (parts[i - 1]?.end ?? 0))).toBe(true);
    expect(parts.at(-1)?.end).toBe(sizes.length);
  });

  it('cuts the same list the same way every time (a resumed upload sends the same parts)', () => {
    const sizes = Array.from({ length: 1_000 }, (_, i) => (i * 7919) % 5_000);
    expect(planParts(sizes, { maxItems: 97, maxBytes: 200_000 })).toEqual(
      planParts([...sizes], { maxItems: 97, maxBytes: 200_000 }),
    );
  });

  it('has no part for an empty list, and refuses an item that no body can carry', () => {
    expect(planParts([], { maxItems: 10, maxBytes: 100_000 })).toEqual([]);
    expect(() => planParts([10, 200_000, 10], { maxItems: 10, maxBytes: 100_000 })).toThrow(ItemTooLarge);
    expect(() => planParts([10], { maxItems: 0, maxBytes: 100_000 })).toThrow(RangeError);
  });

  it('measures an item as its UTF-8 JSON text', () => {
    expect(jsonSizes([{ a: 'å' }, 'x'])).toEqual([Buffer.byteLength('{"a":"å"}'), 3]);
  });
});
