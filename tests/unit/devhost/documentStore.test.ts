/** A write the journal cannot take is undone, so a write that was not acknowledged never stays visible. */
import { Engine, storeOf } from '../../../lib/devhost/cosmos/engine';
import type { DocumentStore } from '../../../lib/devhost/cosmos/documentStore';

function store(): DocumentStore {
  const engine = new Engine('127.0.0.1', 1);
  engine.account.databases.create({ id: 'db' });
  const db = engine.account.database('db');
  db.collections.create({ id: 'c', partitionKey: { paths: ['/pk'] }, uniqueKeyPolicy: { uniqueKeys: [{ paths: ['/key'] }] } });
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
    expect(s.query({ query: 'SELECT VALUE c.id FROM c ORDER BY c.id' }, {}, { value: 'p' }).result).toEqual(['a', 'c', 'd']);
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
});
