/**
 * A write the journal cannot take is undone, so a write that was not acknowledged never stays visible.
 * Time to live as in Cosmos DB: expired items are invisible at once and deleted (journaled).
 */
import { Engine, storeOf } from '../../../../devhost/cosmos/engine';
import type { DocumentStore, DocumentChange } from '../../../../devhost/cosmos/documentStore';

function store(settings: Record<string, unknown> = {}): DocumentStore {
  const engine = new Engine('127.0.0.1', 1);
  engine.account.databases.create({ id: 'db' });
  const db = engine.account.database('db');
  db.collections.create({
    id: 'c',
    partitionKey: { paths: ['/pk'] },
    uniqueKeyPolicy: { uniqueKeys: [{ paths: ['/key'] }] },
    ...settings,
  });
  return storeOf(db.collection('c'))!;
}

const diskFull = () => {
  throw new Error('no space left on device');
};

describe('local engine document store', () => {
  it('undoes a create, a replace and a delete whose journal write fails', () => {
    const s = store();
    const kept = s.create({ id: 'a', pk: 'p', key: 'k1', n: 1 });
    s.onChanges = diskFull;
    expect(() => s.create({ id: 'b', pk: 'p', key: 'k2' })).toThrow('no space left on device');
    expect(() => s.replace({ id: 'a', pk: 'p', key: 'k3', n: 2 }, kept)).toThrow('no space left on device');
    expect(() => s.delete('a', 'p')).toThrow('no space left on device');
    s.onChanges = undefined;
    expect(s.get('p', 'b')).toBeUndefined();
    expect(s.get('p', 'a')).toEqual(kept);
    // The unique keys are as before: k2 and k3 are free, k1 is taken.
    expect(() => s.create({ id: 'c', pk: 'p', key: 'k1' })).toThrow(/already exists/);
    s.create({ id: 'c', pk: 'p', key: 'k2' });
    s.create({ id: 'd', pk: 'p', key: 'k3' });
    expect(s.query({ query: 'SELECT VALUE c.id FROM c ORDER BY c.id' }, {}, { value: 'p' }).result).toEqual([
      'a',
      'c',
      'd',
    ]);
  });

  it('a refused write changes nothing and journals nothing', () => {
    const s = store();
    s.create({ id: 'a', pk: 'p', key: 'k1' });
    const journaled: unknown[] = [];
    s.onChanges = (changes) => journaled.push(...changes);
    expect(() => s.create({ id: 'b', pk: 'p', key: 'k1' })).toThrow(/already exists/);
    expect(journaled).toEqual([]);
    expect(s.size).toBe(1);
  });

  it('keeps documents as their JSON text: what a caller does to a document it read or wrote changes nothing stored', () => {
    const s = store();
    const written = s.create({ id: 'a', pk: 'p', key: 'k1', tags: ['x'], nested: { n: 1 } });
    written.tags = ['changed by the caller'];
    const read = s.get('p', 'a')!;
    expect(read.tags).toEqual(['x']);
    (read.nested as { n: number }).n = 2;
    (read.tags as string[]).push('y');
    expect(s.get('p', 'a')).toMatchObject({ tags: ['x'], nested: { n: 1 } });
    expect(s.query({ query: 'SELECT * FROM c WHERE c.nested.n = 1' }, {}, { value: 'p' }).result).toHaveLength(1);
    const stored = s.partitions.get('sp')!.docs.text('a');
    expect(typeof stored).toBe('string');
    expect(JSON.parse(stored!)).toEqual(s.get('p', 'a'));
  });
});

describe('local engine time to live', () => {
  const T0 = Date.UTC(2026, 0, 1);
  /** A store whose clock the test moves. */
  function clocked(settings: Record<string, unknown>): { s: DocumentStore; at(seconds: number): void } {
    const s = store(settings);
    let now = T0;
    s.now = () => now;
    return { s, at: (seconds) => (now = T0 + seconds * 1000) };
  }
  const ids = (s: DocumentStore) =>
    s.query({ query: 'SELECT VALUE c.id FROM c ORDER BY c.id' }, {}, { value: 'p' }).result;
  const count = (s: DocumentStore) => s.query({ query: 'SELECT VALUE COUNT(1) FROM c' }, {}, { value: 'p' }).result;

  it('defaultTtl -1: an item with ttl disappears from reads, queries and counts when it runs out, and is deleted (journaled)', () => {
    const { s, at } = clocked({ defaultTtl: -1 });
    s.create({ id: 'short', pk: 'p', key: 'k1', ttl: 10 });
    s.create({ id: 'long', pk: 'p', key: 'k2', ttl: 100 });
    s.create({ id: 'kept', pk: 'p', key: 'k3' });
    s.create({ id: 'never', pk: 'p', key: 'k4', ttl: -1 });
    const journaled: DocumentChange[] = [];
    s.onChanges = (changes) => journaled.push(...changes);
    at(9);
    expect(ids(s)).toEqual(['kept', 'long', 'never', 'short']);
    expect(s._item('/id', 'short', 'p').read()).toBeDefined();
    at(10);
    expect(s._item('/id', 'short', 'p').read()).toBeUndefined();
    expect(s.get('p', 'short')).toBeUndefined();
    expect(ids(s)).toEqual(['kept', 'long', 'never']);
    expect(count(s)).toEqual([3]);
    expect(journaled).toEqual([{ t: 'del', pk: 'p', id: 'short' }]);
    // Its id and unique values are free again.
    s.create({ id: 'short', pk: 'p', key: 'k1' });
    at(1000);
    expect(ids(s)).toEqual(['kept', 'never', 'short']);
  });

  it('a write restarts the time to live; an item written again without ttl stays', () => {
    const { s, at } = clocked({ defaultTtl: -1 });
    const first = s.create({ id: 'a', pk: 'p', key: 'k1', ttl: 10 });
    at(8);
    s.replace({ id: 'a', pk: 'p', key: 'k1', ttl: 10, n: 2 }, first);
    at(15);
    expect(s.get('p', 'a')).toMatchObject({ n: 2 });
    at(18);
    expect(s.get('p', 'a')).toBeUndefined();
    s.upsert({ id: 'b', pk: 'p', key: 'k2', ttl: 5 });
    s.upsert({ id: 'b', pk: 'p', key: 'k2' });
    at(1000);
    expect(ids(s)).toEqual(['b']);
  });

  it('a container without defaultTtl ignores item ttl; defaultTtl n expires every item n seconds after its write unless its ttl is -1', () => {
    const off = clocked({});
    off.s.create({ id: 'a', pk: 'p', key: 'k1', ttl: 1 });
    off.at(100);
    expect(ids(off.s)).toEqual(['a']);

    const on = clocked({ defaultTtl: 30 });
    on.s.create({ id: 'a', pk: 'p', key: 'k1' });
    on.s.create({ id: 'b', pk: 'p', key: 'k2', ttl: -1 });
    on.s.create({ id: 'c', pk: 'p', key: 'k3', ttl: 60 });
    on.at(30);
    expect(ids(on.s)).toEqual(['b', 'c']);
    on.at(60);
    expect(ids(on.s)).toEqual(['b']);
  });

  it('a batch sees expired items as gone', () => {
    const { s, at } = clocked({ defaultTtl: -1 });
    s.create({ id: 'a', pk: 'p', key: 'k1', ttl: 10 });
    at(11);
    s.transaction(() => {
      s.create({ id: 'a', pk: 'p', key: 'k1' });
      return true;
    });
    expect(s.get('p', 'a')).not.toHaveProperty('ttl');
  });
});
