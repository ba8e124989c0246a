/** A replace is charged for the indexed terms in one item and not the other, worked out by walking both items together. */
import fc from 'fast-check';
import {
  INDEX_TERM_RU,
  indexTerms,
  replaceCharge,
  sizeOf,
  writeChargeOfSize,
  type IndexingPolicy,
} from '../../../../devhost/cosmos/requestCharge';

/** The definition: the symmetric difference of the two items' term sets. */
function byTermSets(old: Record<string, unknown>, doc: Record<string, unknown>, policy: IndexingPolicy): number {
  const before = new Set(indexTerms(old, policy));
  const after = new Set(indexTerms(doc, policy));
  let changed = 0;
  for (const t of before) if (!after.has(t)) changed++;
  for (const t of after) if (!before.has(t)) changed++;
  return writeChargeOfSize(sizeOf(old)) + writeChargeOfSize(sizeOf(doc)) + INDEX_TERM_RU * changed;
}

const scalar = fc.oneof(
  fc.constantFrom('a', 'b', ''),
  fc.integer({ min: -2, max: 2 }),
  fc.boolean(),
  fc.constant(null),
);
const value = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    scalar,
    fc.array(tie('v'), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom('x', 'y', 'z', '_w'), tie('v'), { maxKeys: 3 }),
  ),
})).v;
const item = fc.dictionary(fc.constantFrom('id', 'pk', 'link', 'names', 'tags', '_etag', '_ts'), value, { maxKeys: 6 });

describe('replace charge', () => {
  it('equals the charge from the two term sets, for any two items and indexing policies', () => {
    const policies: IndexingPolicy[] = [
      {},
      { indexingMode: 'none' },
      { includedPaths: [{ path: '/*' }], excludedPaths: [{ path: '/names/*' }] },
      { includedPaths: [{ path: '/link/?' }, { path: '/tags/[]/?' }], excludedPaths: [{ path: '/*' }] },
    ];
    fc.assert(
      fc.property(item, item, fc.constantFrom(...policies), (old, doc, policy) => {
        expect(replaceCharge(old, doc, policy)).toBeCloseTo(byTermSets(old, doc, policy), 9);
        expect(replaceCharge(old, { ...old }, policy)).toBeCloseTo(byTermSets(old, { ...old }, policy), 9);
      }),
      { numRuns: 2000 },
    );
  });
});
