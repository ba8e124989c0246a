/**
 * The engine answers the service's query shapes from indexes: the documents a query hands to the
 * evaluator are the result (plus the one that tells a page has a successor), not the partition or
 * the container.
 */
import { Engine, storeOf } from '../../../lib/devhost/cosmos/engine';
import type { DocumentStore } from '../../../lib/devhost/cosmos/documentStore';

const N = 5000;
const id = (i: number) => `0190${String(i).padStart(8, '0')}-0000-7000-8000-000000000000`;

function storeWith(partitions: string[]): DocumentStore {
  const engine = new Engine('127.0.0.1', 1);
  engine.account.databases.create({ id: 'db' });
  const db = engine.account.database('db');
  db.collections.create({ id: 'identities', partitionKey: { paths: ['/pk'] }, uniqueKeyPolicy: { uniqueKeys: [{ paths: ['/externalIdKey'] }] } });
  const store = storeOf(db.collection('identities'))!;
  for (const pk of partitions) {
    for (let i = 0; i < N; i++) {
      store.create({ id: id(i), pk, externalIdKey: `e-${i}`, kind: i % 1000 === 0 ? 'rare' : 'common', lastModified: `2026-01-01T00:00:${String(i % 60).padStart(2, '0')}Z`, link: { status: i % 500 === 0 ? 'pending' : 'linked' } });
    }
  }
  return store;
}

describe('local engine query planning', () => {
  const store = storeWith(['p1', 'p2']);
  const inP1 = { value: 'p1' };
  const examined = (f: () => { result: unknown[] }): { result: unknown[]; examined: number } => {
    const before = store.examined;
    const out = f();
    return { result: out.result, examined: store.examined - before };
  };

  it('an equality on a field examines only the matching document', () => {
    const out = examined(() => store.query({ query: 'SELECT * FROM c WHERE c.pk = @pk AND (c.externalIdKey = @v)', parameters: [{ name: '@pk', value: 'p1' }, { name: '@v', value: 'e-4321' }] }, { maxItemCount: 1 }, inP1));
    expect(out.result).toHaveLength(1);
    expect(out.examined).toBe(1);
  });

  it('a keyset page examines the page and the next document, however deep', () => {
    const out = examined(() =>
      store.query({ query: 'SELECT TOP 100 * FROM c WHERE c.pk = @pk AND (c.id > @after) ORDER BY c.id', parameters: [{ name: '@pk', value: 'p1' }, { name: '@after', value: id(4000) }] }, { maxItemCount: 100 }, inP1),
    );
    expect((out.result as Array<{ id: string }>).map((d) => d.id)).toEqual(Array.from({ length: 100 }, (_, k) => id(4001 + k)));
    expect(out.examined).toBeLessThanOrEqual(101);
  });

  it('a keyset page with a range filter that most documents pass stops after the page', () => {
    const out = examined(() =>
      store.query(
        { query: 'SELECT TOP 100 * FROM c WHERE c.pk = @pk AND (c.lastModified > @lower AND c.id > @after) ORDER BY c.id', parameters: [{ name: '@pk', value: 'p1' }, { name: '@lower', value: '2026-01-01T00:00:00Z' }, { name: '@after', value: id(100) }] },
        { maxItemCount: 100 },
        inP1,
      ),
    );
    expect(out.result).toHaveLength(100);
    expect(out.examined).toBeLessThanOrEqual(100);
  });

  it('COUNT of a partition, of a range and of an equality examines no document', () => {
    const count = (query: string, parameters: Array<{ name: string; value: string }> = []) =>
      examined(() => store.query({ query, parameters: [{ name: '@pk', value: 'p1' }, ...parameters] }, {}, inP1));
    expect(count('SELECT VALUE COUNT(1) FROM c WHERE c.pk = @pk')).toEqual({ result: [N], examined: 0 });
    expect(count('SELECT VALUE COUNT(1) FROM c WHERE c.pk = @pk AND (c.lastModified >= @lo)', [{ name: '@lo', value: '2026-01-01T00:00:30Z' }])).toEqual({ result: [Array.from({ length: N }, (_, i) => i % 60).filter((s) => s >= 30).length], examined: 0 });
    expect(count("SELECT VALUE COUNT(1) FROM c WHERE c.pk = @pk AND c.kind = 'rare'")).toEqual({ result: [N / 1000], examined: 0 });
  });

  it('a query with a partition key examines nothing of other partitions, even when its text names none', () => {
    const out = examined(() => store.query({ query: "SELECT * FROM c WHERE c.kind = 'common'" }, {}, { value: 'p2' }));
    expect(out.result).toHaveLength(N - N / 1000);
    expect(out.examined).toBe(N - N / 1000);
  });

  it('a cross-partition query on an indexed value examines the matches of each partition only', () => {
    const out = examined(() => store.query({ query: "SELECT c.id, c.pk FROM c WHERE (c.link.status = 'pending' OR c.link.status = 'conflict') AND c.id > @after ORDER BY c.id", parameters: [{ name: '@after', value: '' }] }, { maxItemCount: 1000 }));
    expect(out.result).toHaveLength(2 * (N / 500));
    expect(out.examined).toBe(2 * (N / 500));
  });

  it('a condition it cannot index still gives the right answer, from the partition only', () => {
    const out = examined(() => store.query({ query: 'SELECT VALUE c.id FROM c WHERE c.pk = @pk AND STARTSWITH(c.externalIdKey, "e-499")', parameters: [{ name: '@pk', value: 'p1' }] }, {}, inP1));
    expect(out.result).toHaveLength(11);
    expect(out.examined).toBe(N);
  });
});
