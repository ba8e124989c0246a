/**
 * The imports container does not index manifest entries or staged parts: a manifest segment or a part
 * costs its size to write, not its thousands of keys.
 */
import { randomUUID } from 'node:crypto';
import { CONTAINERS } from '../../../lib/store/containers';
import { SEGMENT_MAX_BYTES, segmentBodies } from '../../../lib/imports/manifest';
import { createCharge, indexTerms } from '../../../devhost/cosmos/requestCharge';

describe('imports container indexing', () => {
  it('a full manifest segment writes for its size (about 600 RU), not for its thousands of keys', () => {
    const keys = Array.from({ length: 20_000 }, (_, i) => `EMP-${i}`);
    const [entries] = segmentBodies(keys, () => ({ id: randomUUID(), hash: 'f'.repeat(22) }));
    const segment = { id: 'manifest-g-000007', pk: 't|src:Big', kind: 'manifestSegment', gen: 'g', seq: 7, entries };
    expect(Buffer.byteLength(JSON.stringify(segment))).toBeLessThan(SEGMENT_MAX_BYTES + 200);
    const policy = CONTAINERS.imports.indexingPolicy;
    expect(indexTerms(segment, policy).sort()).toEqual([
      '#0=["manifestSegment","manifest-g-000007"]',
      'id="manifest-g-000007"',
      'kind="manifestSegment"',
      'pk="t|src:Big"',
    ]);
    expect(createCharge(segment, policy)).toBeLessThan(700);
    // Indexed like the other containers (everything), the same segment costs several times more.
    expect(createCharge(segment)).toBeGreaterThan(2000);
  });
});
