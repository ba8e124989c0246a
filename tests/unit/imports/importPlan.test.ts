import { contentHash, type ValidImportIdentity } from '../../../lib/imports/importInput';
import type { ManifestEntry } from '../../../lib/imports/manifest';
import {
  deletionsByAbsence,
  exceedsDeleteLimit,
  intentEntry,
  planImport,
  planWrites,
  repeatedWriteOutcome,
} from '../../../lib/imports/importPlan';

const identity = (externalId: string, givenName = 'F'): ValidImportIdentity => {
  const attributes = {
    externalId,
    givenName,
    familyName: 'L',
    active: true,
    affiliationType: 'employment' as const,
    personalNumbers: [],
    identityDocumentReferences: [],
  };
  return { attributes, hash: contentHash(attributes) };
};

const manifestOf = (...entries: Array<[string, ManifestEntry]>): Map<string, ManifestEntry> => new Map(entries);

function ids(): () => string {
  let n = 0;
  return () => `new-${++n}`;
}

describe('planImport', () => {
  it('plans every identity of a new source as a create, in the order of the set, with fresh ids', () => {
    const plan = planImport(new Map(), [identity('a'), identity('b')], ids());
    expect(plan.creates.map((w) => [w.identity.attributes.externalId, w.id])).toEqual([
      ['a', 'new-1'],
      ['b', 'new-2'],
    ]);
    expect(plan).toMatchObject({ updates: [], unchanged: 0, deletions: [] });
  });

  it('sorts the set against the manifest: unchanged by hash, updated under the id it has, created, deleted by absence', () => {
    const same = identity('same');
    const changed = identity('changed', 'New name');
    const manifest = manifestOf(
      ['same', { id: 'id-same', hash: same.hash }],
      ['changed', { id: 'id-changed', hash: identity('changed').hash }],
      ['gone', { id: 'id-gone', hash: 'h' }],
    );
    const plan = planImport(manifest, [same, changed, identity('fresh')], ids());
    expect(plan.unchanged).toBe(1);
    expect(plan.updates).toEqual([
      { identity: changed, id: 'id-changed', entry: { id: 'id-changed', hash: identity('changed').hash } },
    ]);
    expect(plan.creates.map((w) => [w.identity.attributes.externalId, w.id])).toEqual([['fresh', 'new-1']]);
    expect(plan.deletions).toEqual([{ externalId: 'gone', entry: { id: 'id-gone', hash: 'h' } }]);
  });

  it('writes again an identity whose manifest entry has no hash (an earlier write may not have finished)', () => {
    const a = identity('a');
    const plan = planImport(manifestOf(['a', { id: 'id-a', hash: null }]), [a], ids());
    expect(plan.updates).toEqual([{ identity: a, id: 'id-a', entry: { id: 'id-a', hash: null } }]);
    expect(plan.unchanged).toBe(0);
  });

  it('does not change the manifest', () => {
    const manifest = manifestOf(['gone', { id: 'id-gone', hash: 'h' }]);
    planImport(manifest, [identity('a')], ids());
    expect([...manifest]).toEqual([['gone', { id: 'id-gone', hash: 'h' }]]);
  });
});

describe('deletionsByAbsence', () => {
  it('names every identity of the source the complete set no longer holds, and only those', () => {
    const manifest = manifestOf(
      ['a', { id: '1', hash: 'x' }],
      ['b', { id: '2', hash: null }],
      ['c', { id: '3', hash: 'z' }],
    );
    expect(deletionsByAbsence(manifest, [identity('b')]).map((d) => d.externalId)).toEqual(['a', 'c']);
    expect(deletionsByAbsence(manifest, [identity('a'), identity('b'), identity('c')])).toEqual([]);
  });
});

describe('exceedsDeleteLimit', () => {
  const manifest = manifestOf(
    ['a', { id: '1', hash: 'x' }],
    ['b', { id: '2', hash: 'x' }],
    ['c', { id: '3', hash: 'x' }],
    ['d', { id: '4', hash: 'x' }],
  );
  const planKeeping = (...kept: string[]) =>
    planImport(
      manifest,
      kept.map((e) => identity(e)),
      ids(),
    );

  it('allows deleting up to the ratio and refuses more', () => {
    expect(exceedsDeleteLimit(planKeeping('a', 'b'), manifest.size, 0.5)).toBe(false); // 2 of 4
    expect(exceedsDeleteLimit(planKeeping('a'), manifest.size, 0.5)).toBe(true); // 3 of 4
  });
  it('has no limit without a ratio, and nothing to limit for a new source', () => {
    expect(exceedsDeleteLimit(planKeeping('z'), manifest.size, undefined)).toBe(false);
    expect(exceedsDeleteLimit(planImport(new Map(), [identity('a')], ids()), 0, 0)).toBe(false);
  });
});

describe('intents and writes repeated after a crash', () => {
  const a = identity('a');
  it("an intent keeps what the entry had before: nothing (new), its hash, or the earlier intent's", () => {
    expect(intentEntry({ identity: a, id: 'n1' })).toEqual({ id: 'n1', hash: null, prev: null });
    expect(intentEntry({ identity: a, id: 'i1', entry: { id: 'i1', hash: 'old' } })).toEqual({
      id: 'i1',
      hash: null,
      prev: 'old',
    });
    expect(intentEntry({ identity: a, id: 'i1', entry: { id: 'i1', hash: null, prev: 'old' } })).toMatchObject({
      prev: 'old',
    });
    // An intent of the earlier manifest layout does not say what it had: still unknown.
    expect(intentEntry({ identity: a, id: 'i1', entry: { id: 'i1', hash: null } })).toEqual({ id: 'i1', hash: null });
  });

  it('a write that finds the identity as the set has it counts what the interrupted write did', () => {
    const planned = (entry?: ManifestEntry) => ({ identity: a, id: 'i1', ...(entry ? { entry } : {}) });
    expect(repeatedWriteOutcome(planned({ id: 'i1', hash: null, prev: null }))).toBe('created');
    expect(repeatedWriteOutcome(planned({ id: 'i1', hash: null, prev: 'old' }))).toBe('updated');
    expect(repeatedWriteOutcome(planned({ id: 'i1', hash: null, prev: a.hash }))).toBe('unchanged');
    expect(repeatedWriteOutcome(planned({ id: 'i1', hash: null }))).toBe('unchanged');
    expect(repeatedWriteOutcome(planned({ id: 'i1', hash: 'other' }))).toBe('unchanged');
    expect(repeatedWriteOutcome(planned())).toBe('unchanged');
  });

  it('plans the writes of one part without looking for deletions', () => {
    const plan = planWrites(manifestOf(['gone', { id: 'g', hash: 'h' }]), [a], ids());
    expect(plan).toEqual({ creates: [{ identity: a, id: 'new-1' }], updates: [], unchanged: 0 });
  });
});
