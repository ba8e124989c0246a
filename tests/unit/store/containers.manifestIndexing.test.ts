/** The imports container does not index manifest entries: a shard of a large source costs its size to write, not its thousands of keys. */
import { randomUUID } from 'node:crypto';
import { CONTAINERS } from '../../../lib/store/containers';
import { MANIFEST_SHARDS } from '../../../lib/imports/manifest';
import { createCharge, indexTerms } from '../../../devhost/cosmos/requestCharge';

describe('imports container indexing', () => {
  it('a manifest shard of a 200,000-identity source writes for about a hundred RU, not over a thousand', () => {
    const entries: Record<string, { id: string; hash: string }> = {};
    for (let i = 0; i < 200_000 / MANIFEST_SHARDS; i++)
      entries[`EMP-${i * MANIFEST_SHARDS}`] = { id: randomUUID(), hash: 'f'.repeat(64) };
    const shard = { id: 'manifest-7', pk: 't|src:Big', kind: 'manifestShard', shard: 7, entries };
    const policy = CONTAINERS.imports.indexingPolicy;
    expect(indexTerms(shard, policy).sort()).toEqual([
      '#0=["manifestShard","manifest-7"]',
      'id="manifest-7"',
      'kind="manifestShard"',
      'pk="t|src:Big"',
    ]);
    expect(createCharge(shard, policy)).toBeLessThan(200);
    // Indexed like the other containers (everything), the same shard costs over a thousand.
    expect(createCharge(shard)).toBeGreaterThan(1000);
  });
});
