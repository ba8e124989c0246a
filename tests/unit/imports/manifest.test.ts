import {
  SEGMENT_MAX_BYTES,
  decodeEntry,
  encodeEntry,
  needsCompaction,
  segmentBodies,
  type ManifestEntry,
} from '../../../lib/imports/manifest';

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
