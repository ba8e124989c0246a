/**
 * The engine answers the service's query shapes from indexes: the documents a query hands to the
 * evaluator are the result (plus the one that tells a page has a successor), not the partition or
 * the container.
 */
import { Engine, storeOf } from '../../../../devhost/cosmos/engine';
import type { DocumentStore } from '../../../../devhost/cosmos/documentStore';

const N = 5000;
const id = (i: number) => `0190${String(i).padStart(8, '0')}-0000-7000-8000-000000000000`;

function storeWith(partitions: string[]): DocumentStore {
  const engine = new Engine('127.0.0.1', 1);
  engine.account.databases.create({ id: 'db' });
  const db = engine.account.database('db');
  db.collections.create({
    id: 'identities',
    partitionKey: { paths: ['/pk'] },
    uniqueKeyPolicy: { uniqueKeys: [{ paths: ['/externalIdKey'] }] },
  });
  const store = storeOf(db.collection('identities'))!;
  for (const pk of partitions) {
    for (let i = 0; i < N; i++) {
      store.create({
        id: id(i),
        pk,
        externalIdKey: `e-${i}`,
        kind: i % 1000 === 0 ? 'rare' : 'common',
        lastModified: `2026-01-01T00:00:${String(i % 60).padStart(2, '0')}Z`,
        link: { status: i % 500 === 0 ? 'pending' : 'linked' },
      });
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
    const out = examined(() =>
      store.query(
        {
          query: 'SELECT * FROM c WHERE c.pk = @pk AND (c.externalIdKey = @v)',
          parameters: [
            { name: '@pk', value: 'p1' },
            { name: '@v', value: 'e-4321' },
          ],
        },
        { maxItemCount: 1 },
        { value: 'p1' },
      ),
    );
    expect(out.result).toHaveLength(1);
    expect(out.examined).toBe(1);
  });

  it('a keyset page examines the page and the next document, however deep', () => {
    const out = examined(() =>
      store.query(
        {
          query: 'SELECT TOP 100 * FROM c WHERE c.pk = @pk AND (c.id > @after) ORDER BY c.id',
          parameters: [
            { name: '@pk', value: 'p1' },
            { name: '@after', value: id(4000) },
          ],
        },
        { maxItemCount: 100 },
        { value: 'p1' },
      ),
    );
    expect((out.result as Array<{ id: string }>).map((d) => d.id)).toEqual(
      Array.from({ length: 100 }, (_, k) => id(4001 + k)),
    );
    expect(out.examined).toBeLessThanOrEqual(101);
  });

  it('a keyset page with a range filter that most documents pass stops after the page', () => {
    const out = examined(() =>
      store.query(
        {
          query:
            'SELECT TOP 100 * FROM c WHERE c.pk = @pk AND (c.lastModified > @lower AND c.id > @after) ORDER BY c.id',
          parameters: [
            { name: '@pk', value: 'p1' },
            { name: '@lower', value: '2026-01-01T00:00:00Z' },
            { name: '@after', value: id(100) },
          ],
        },
        { maxItemCount: 100 },
        { value: 'p1' },
      ),
    );
    expect(out.result).toHaveLength(100);
    expect(out.examined).toBeLessThanOrEqual(100);
  });

  it('COUNT of a partition, of a range and of an equality examines no document', () => {
    const count = (query: string, parameters: Array<{ name: string; value: string }> = []) =>
      examined(() => store.query({ query, parameters: [{ name: '@pk', value: 'p1' }, ...parameters] }, {}, inP1));
    expect(count('SELECT VALUE COUNT(1) FROM c WHERE c.pk = @pk')).toEqual({ result: [N], examined: 0 });
    expect(
      count('SELECT VALUE COUNT(1) FROM c WHERE c.pk = @pk AND (c.lastModified >= @lo)', [
        { name: '@lo', value: '2026-01-01T00:00:30Z' },
      ]),
    ).toEqual({ result: [Array.from({ length: N }, (_, i) => i % 60).filter((s) => s >= 30).length], examined: 0 });
    expect(count("SELECT VALUE COUNT(1) FROM c WHERE c.pk = @pk AND c.kind = 'rare'")).toEqual({
      result: [N / 1000],
      examined: 0,
    });
  });

  it('a query with a partition key examines nothing of other partitions, even when its text names none', () => {
    const out = examined(() => store.query({ query: "SELECT * FROM c WHERE c.kind = 'common'" }, {}, { value: 'p2' }));
    expect(out.result).toHaveLength(N - N / 1000);
    expect(out.examined).toBe(N - N / 1000);
  });

  it('a cross-partition query on an indexed value examines the matches of each partition only', () => {
    const out = examined(() =>
      store.query(
        {
          query:
            "SELECT c.id, c.pk FROM c WHERE (c.link.status = 'pending' OR c.link.status = 'conflict') AND c.id > @after ORDER BY c.id",
          parameters: [{ name: '@after', value: '' }],
        },
        { maxItemCount: 1000 },
      ),
    );
    expect(out.result).toHaveLength(2 * (N / 500));
    expect(out.examined).toBe(2 * (N / 500));
  });

  it('a condition it cannot index still gives the right answer, from the partition only', () => {
    const out = examined(() =>
      store.query(
        {
          query: 'SELECT VALUE c.id FROM c WHERE c.pk = @pk AND STARTSWITH(c.externalIdKey, "e-499")',
          parameters: [{ name: '@pk', value: 'p1' }],
        },
        {},
        { value: 'p1' },
      ),
    );
    expect(out.result).toHaveLength(11);
    expect(out.examined).toBe(N);
  });
});

describe('local engine: a filtered keyset page at growing partition sizes', () => {
  const SIZES = [1000, 20000];
  const engine = new Engine('127.0.0.1', 1);
  engine.account.databases.create({ id: 'db' });
  const db = engine.account.database('db');
  db.collections.create({ id: 'identities', partitionKey: { paths: ['/pk'] } });
  const store = storeOf(db.collection('identities'))!;
  // 1 % conflicts, 10 % linked, the rest not asserted, in each partition.
  const status = (i: number) => (i % 100 === 2 ? 'conflict' : i % 10 === 0 ? 'linked' : 'notAsserted');
  for (const n of SIZES)
    for (let i = 0; i < n; i++) store.create({ id: id(i), pk: `n${n}`, link: { status: status(i) } });
  const PAGE = 'SELECT TOP 51 * FROM c WHERE c.pk = @pk AND c.link.status = @s AND c.id > @after ORDER BY c.id';
  const page = (n: number, s: string, after: string) => {
    const before = store.examined;
    const out = store.query(
      {
        query: PAGE,
        parameters: [
          { name: '@pk', value: `n${n}` },
          { name: '@s', value: s },
          { name: '@after', value: after },
        ],
      },
      { maxItemCount: 51 },
      { value: `n${n}` },
    );
    return { ids: (out.result as Array<{ id: string }>).map((d) => d.id), examined: store.examined - before };
  };

  it.each(SIZES)('a page of a 1 %% status examines at most the page and the next item at N = %i', (n) => {
    const out = page(n, 'conflict', '');
    expect(out.ids).toEqual(
      Array.from({ length: n }, (_, i) => i)
        .filter((i) => status(i) === 'conflict')
        .slice(0, 51)
        .map(id),
    );
    expect(out.examined).toBeLessThanOrEqual(51);
  });

  it('following the cursor returns every identity of the status once, in id order, at the same cost per page', () => {
    const n = 20000;
    const seen: string[] = [];
    let after = '';
    for (;;) {
      const out = page(n, 'conflict', after);
      expect(out.examined).toBeLessThanOrEqual(51);
      seen.push(...out.ids.slice(0, 50));
      if (out.ids.length <= 50) break;
      after = out.ids[49] ?? '';
    }
    expect(seen).toEqual(
      Array.from({ length: n }, (_, i) => i)
        .filter((i) => status(i) === 'conflict')
        .map(id),
    );
  });

  it('a page after a cursor with an upper id bound stops at the bound', () => {
    const out = store.query(
      {
        query:
          'SELECT * FROM c WHERE c.pk = @pk AND c.link.status = @s AND c.id > @after AND c.id <= @upTo ORDER BY c.id',
        parameters: [
          { name: '@pk', value: 'n20000' },
          { name: '@s', value: 'linked' },
          { name: '@after', value: id(100) },
          { name: '@upTo', value: id(300) },
        ],
      },
      { maxItemCount: 100 },
      { value: 'n20000' },
    );
    expect((out.result as Array<{ id: string }>).map((d) => d.id)).toEqual(
      [110, 120, 130, 140, 150, 160, 170, 180, 190, 200, 210, 220, 230, 240, 250, 260, 270, 280, 290, 300].map(id),
    );
  });

  it('a document whose status changes leaves the walk of its old status and joins the new one', () => {
    const doc = store.get('n1000', id(12))!;
    store.replace({ ...doc, link: { status: 'conflict' } }, doc);
    expect(page(1000, 'conflict', '').ids.slice(0, 3)).toEqual([id(2), id(12), id(102)]);
    store.replace({ ...doc, link: { status: 'notAsserted' } }, store.get('n1000', id(12))!);
    expect(page(1000, 'conflict', '').ids.slice(0, 3)).toEqual([id(2), id(102), id(202)]);
  });
});

describe('local engine: ORDER BY the partition key', () => {
  const store = storeWith(['p2', 'p1']);
  const examined = (f: () => { result: unknown[] }): { result: unknown[]; examined: number } => {
    const before = store.examined;
    const out = f();
    return { result: out.result, examined: store.examined - before };
  };

  it('TOP with ORDER BY the partition key across partitions walks partitions in key order and stops', () => {
    const out = examined(() =>
      store.query(
        {
          query: "SELECT TOP 1 c.pk FROM c WHERE c.kind = 'rare' AND c.pk > @after ORDER BY c.pk",
          parameters: [{ name: '@after', value: '' }],
        },
        {},
      ),
    );
    expect(out.result).toEqual([{ pk: 'p1' }]);
    expect(out.examined).toBe(N / 1000);
    const next = examined(() =>
      store.query(
        {
          query: "SELECT TOP 1 c.pk FROM c WHERE c.kind = 'rare' AND c.pk > @after ORDER BY c.pk",
          parameters: [{ name: '@after', value: 'p1' }],
        },
        {},
      ),
    );
    expect(next.result).toEqual([{ pk: 'p2' }]);
  });

  it('TOP with ORDER BY one path DESC walks down its index: the newest first, examining about the page', () => {
    const out = examined(() =>
      store.query(
        {
          query:
            'SELECT TOP 10 c.id, c.lastModified FROM c WHERE c.pk = @pk AND (c.lastModified <= @until) ORDER BY c.lastModified DESC',
          parameters: [
            { name: '@pk', value: 'p1' },
            { name: '@until', value: '2026-01-01T00:00:30Z' },
          ],
        },
        {},
        { value: 'p1' },
      ),
    );
    expect(out.result).toHaveLength(10);
    expect(
      (out.result as Array<{ lastModified: string }>).every((r) => r.lastModified === '2026-01-01T00:00:30Z'),
    ).toBe(true);
    expect(out.examined).toBeLessThanOrEqual(10);
  });

  it('an OR of conjunctions examines the union of the index look-ups of its branches, not the partition', () => {
    // The shape of the background's "conflicts due, or pending with a look-up owed" query.
    const out = examined(() =>
      store.query(
        {
          query:
            "SELECT * FROM c WHERE c.pk = @pk AND ((c.kind = 'rare' AND c.lastModified >= @from) OR (c.link.status = 'pending' AND c.kind = 'common'))",
          parameters: [
            { name: '@pk', value: 'p1' },
            { name: '@from', value: '2026-01-01T00:00:00Z' },
          ],
        },
        {},
        { value: 'p1' },
      ),
    );
    // rare: i % 1000 === 0 (5); pending and common: i % 500 === 0 and not i % 1000 === 0 (5).
    const ids = (out.result as Array<{ id: string }>).map((d) => d.id).sort();
    expect(ids).toEqual(Array.from({ length: N / 500 }, (_, k) => id(k * 500)).sort());
    // Each branch's equality: 5 rare, 10 pending (the evaluator checks the rest); never 5,000.
    expect(out.examined).toBeLessThanOrEqual(15);
  });

  it('an OR with a branch no index answers reads the partition, and still answers exactly', () => {
    const out = examined(() =>
      store.query(
        {
          query: "SELECT VALUE c.id FROM c WHERE c.pk = @pk AND (c.kind = 'rare' OR NOT IS_DEFINED(c.missing))",
          parameters: [{ name: '@pk', value: 'p1' }],
        },
        {},
        { value: 'p1' },
      ),
    );
    expect(out.result).toHaveLength(N);
    expect(out.examined).toBe(N);
  });

  /** Every page of a query in p1, `size` at a time: the ids in page order and what each page examined. */
  const allPages = (query: { query: string; parameters: Array<{ name: string; value: string }> }, size: number) => {
    const seen: string[] = [];
    const examinedPerPage: number[] = [];
    let continuation: { token: string } | null = null;
    do {
      const before = store.examined;
      const page = store.query(query, { maxItemCount: size, continuation }, { value: 'p1' }) as {
        result: Array<{ id: string }>;
        continuation: { token: string } | null;
      };
      examinedPerPage.push(store.examined - before);
      seen.push(...page.result.map((d) => d.id));
      continuation = page.continuation;
    } while (continuation);
    return { seen, examinedPerPage };
  };

  it('the pages of an unordered query each read about the page, not every earlier page again', () => {
    // 10 documents of kind 'rare' in p1 (the manifest's segments, read four a page, have this shape).
    const query = {
      query: "SELECT * FROM c WHERE c.pk = @pk AND c.kind = 'rare'",
      parameters: [{ name: '@pk', value: 'p1' }],
    };
    const { seen, examinedPerPage } = allPages(query, 2);
    // Every match once, in the order of the pages (no page skipped or repeated).
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.sort()).toEqual(Array.from({ length: N / 1000 }, (_, k) => id(k * 1000)).sort());
    // The page and the one that tells another follows, whatever the page's depth (reading all: 10 a page).
    for (const n of examinedPerPage) expect(n).toBeLessThanOrEqual(3);
  });

  it('the pages of a query ordered by id, newest first, each read about the page', () => {
    const query = {
      query: "SELECT * FROM c WHERE c.pk = @pk AND c.kind = 'common' ORDER BY c.id DESC",
      parameters: [{ name: '@pk', value: 'p1' }],
    };
    const { seen, examinedPerPage } = allPages(query, 500);
    const common = Array.from({ length: N }, (_, i) => i)
      .filter((i) => i % 1000 !== 0)
      .map(id);
    expect(seen).toEqual(common.reverse());
    // Reading every common document for each page would be 4,995 a page.
    for (const n of examinedPerPage) expect(n).toBeLessThanOrEqual(501);
  });
});
