/**
 * Writes with random ids (claims keyed by directory object id, audit entries) do not shift the partition's
 * id order one by one; a replace keeps the item's place and moves only index entries whose value changed.
 * Queries answer as before: keyset order, id ranges, equality on a replaced value.
 */
import { randomUUID } from 'node:crypto';
import { Engine, storeOf } from '../../../../devhost/cosmos/engine';
import { SortedIds } from '../../../../devhost/cosmos/indexes';
import type { DocumentStore } from '../../../../devhost/cosmos/documentStore';

function store(): DocumentStore {
  const engine = new Engine('127.0.0.1', 1);
  engine.account.databases.create({ id: 'db' });
  const db = engine.account.database('db');
  db.collections.create({ id: 'c', partitionKey: { paths: ['/pk'] } });
  return storeOf(db.collection('c'))!;
}

describe('id order of a partition', () => {
  it('keeps ids in order whatever order they come and go in', () => {
    const ids = new SortedIds();
    const expected = new Set<string>();
    for (let round = 0; round < 20; round++) {
      for (let i = 0; i < 50; i++) {
        const id = randomUUID();
        ids.insert(id);
        expected.add(id);
      }
      const gone = [...expected].slice(0, 5);
      for (const id of gone) {
        ids.remove(id);
        expected.delete(id);
      }
      expect(ids.size).toBe(expected.size);
      if (round % 3 === 0) expect(ids.sorted()).toEqual([...expected].sort());
    }
    expect(ids.sorted()).toEqual([...expected].sort());
  });

  it('answers keyset pages and equality queries after random-id creates and replaces', () => {
    const s = store();
    const ids = Array.from({ length: 300 }, () => randomUUID());
    const stored = new Map(ids.map((id, i) => [id, s.create({ id, pk: 'p', colour: i % 2 ? 'red' : 'blue', n: i })]));
    // Page through in id order while new items keep arriving.
    const seen: string[] = [];
    let after = '';
    for (;;) {
      const page = s.query(
        {
          query: 'SELECT TOP 40 VALUE c.id FROM c WHERE c.id > @a ORDER BY c.id',
          parameters: [{ name: '@a', value: after }],
        },
        {},
        { value: 'p' },
      ).result as string[];
      if (page.length === 0) break;
      seen.push(...page);
      after = page[page.length - 1]!;
    }
    expect(seen).toEqual([...ids].sort());
    // Replaces: one value changes (its index entry moves), the rest keep theirs.
    const first = ids[0]!;
    expect(s.query({ query: "SELECT VALUE c.id FROM c WHERE c.colour = 'blue'" }, {}, { value: 'p' }).result).toContain(
      first,
    );
    s.replace({ id: first, pk: 'p', colour: 'green', n: 0 }, stored.get(first)!);
    s.replace({ id: ids[2]!, pk: 'p', colour: 'blue', n: 1000 }, stored.get(ids[2]!)!);
    expect(s.query({ query: "SELECT VALUE c.id FROM c WHERE c.colour = 'green'" }, {}, { value: 'p' }).result).toEqual([
      first,
    ]);
    expect(
      s.query({ query: "SELECT VALUE c.id FROM c WHERE c.colour = 'blue'" }, {}, { value: 'p' }).result,
    ).not.toContain(first);
    expect(s.query({ query: 'SELECT VALUE c.id FROM c WHERE c.n = 1000' }, {}, { value: 'p' }).result).toEqual([
      ids[2],
    ]);
    expect(s.query({ query: 'SELECT VALUE c.id FROM c ORDER BY c.id' }, {}, { value: 'p' }).result).toEqual(
      [...ids].sort(),
    );
  });
});
