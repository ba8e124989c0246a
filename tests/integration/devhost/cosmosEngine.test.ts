/**
 * The local Cosmos-compatible engine through the real @azure/cosmos SDK: partition-scoped,
 * index-answered queries give the same results as evaluating the query over the partition's
 * documents; unique keys, ETags and transactional batches; data kept across restarts and kill -9.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { buildSync } from 'esbuild';
import { CosmosClient, type Container, type SqlParameter } from '@azure/cosmos';
import { startLocalCosmos, LOCAL_COSMOS_KEY, type LocalCosmos } from '../../../devhost/cosmosServer';
import parseQuery from '@zeit/cosmosdb-query';
import { createStore } from '../../../lib/store/store';
import { CONTAINERS } from '../../../lib/store/containers';

const CONTAINER = {
  id: 'items',
  partitionKey: { paths: ['/pk'] },
  uniqueKeyPolicy: { uniqueKeys: [{ paths: ['/key'] }] },
};

async function open(cosmos: LocalCosmos): Promise<{ client: CosmosClient; container: Container }> {
  const client = new CosmosClient({
    endpoint: cosmos.endpoint,
    key: LOCAL_COSMOS_KEY,
    connectionPolicy: { enableEndpointDiscovery: false },
  });
  const { database } = await client.databases.createIfNotExists({ id: 'db' });
  const { container } = await database.containers.createIfNotExists(structuredClone(CONTAINER));
  return { client, container };
}

type Doc = { id: string; pk: string; key: string; kind: string; n: number; at: string; link?: { status: string } };

const pad = (i: number) => String(i).padStart(5, '0');
function docOf(pk: string, i: number): Doc {
  return {
    id: `${pk}-${pad(i)}`,
    pk,
    key: `k${i}`,
    kind: i % 3 === 0 ? 'a' : 'b',
    n: i % 7,
    at: `2026-01-${String((i % 28) + 1).padStart(2, '0')}`,
    ...(i % 5 === 0 ? { link: { status: i % 2 ? 'pending' : 'linked' } } : {}),
  };
}

/** The answer the query evaluator gives over the given documents, with no engine in between. */
function reference(sql: string, docs: Doc[], parameters: SqlParameter[] = []): unknown[] {
  const withRid = docs.map((d, i) => ({ ...d, _rid: `r${pad(i)}` }));
  const out = parseQuery(sql).exec(withRid, { parameters }) as { result: unknown[] };
  return out.result.map((r) => (typeof r === 'object' && r !== null && 'id' in r ? (r as { id: string }).id : r));
}

async function all(
  container: Container,
  sql: string,
  parameters: SqlParameter[],
  options: { partitionKey?: string; maxItemCount?: number },
): Promise<{ items: unknown[]; pages: number }> {
  const items: unknown[] = [];
  let pages = 0;
  let continuationToken: string | undefined;
  do {
    const res = await container.items.query({ query: sql, parameters }, { ...options, continuationToken }).fetchNext();
    pages++;
    items.push(
      ...res.resources.map((r) => (typeof r === 'object' && r !== null && 'id' in r ? (r as { id: string }).id : r)),
    );
    continuationToken = res.continuationToken ?? undefined;
  } while (continuationToken);
  return { items, pages };
}

describe('local Cosmos engine: queries', () => {
  let cosmos: LocalCosmos;
  let client: CosmosClient;
  let container: Container;
  const A: Doc[] = Array.from({ length: 300 }, (_, i) => docOf('A', i));
  const B: Doc[] = Array.from({ length: 120 }, (_, i) => docOf('B', i));

  beforeAll(async () => {
    cosmos = await startLocalCosmos({ port: 0 });
    ({ client, container } = await open(cosmos));
    for (const d of [...A, ...B].reverse()) await container.items.create(d);
  });
  afterAll(async () => {
    client.dispose();
    await cosmos.close();
  });

  const cases: Array<[string, string, SqlParameter[]]> = [
    [
      'keyset page after an id',
      'SELECT * FROM c WHERE c.pk = @pk AND (c.id > @after) ORDER BY c.id',
      [{ name: '@after', value: 'A-00150' }],
    ],
    [
      'keyset with a range filter',
      'SELECT * FROM c WHERE c.pk = @pk AND (c.at >= @lo AND c.at < @hi AND c.id > @after) ORDER BY c.id',
      [
        { name: '@lo', value: '2026-01-05' },
        { name: '@hi', value: '2026-01-09' },
        { name: '@after', value: 'A-00010' },
      ],
    ],
    ['ids only, ordered', 'SELECT VALUE c.id FROM c WHERE c.pk = @pk ORDER BY c.id', []],
    ['equality on a field', "SELECT * FROM c WHERE c.pk = @pk AND c.kind = 'a'", []],
    [
      'equality on a nested field, OR of values',
      "SELECT * FROM c WHERE c.pk = @pk AND (c.link.status = 'pending' OR c.link.status = 'linked') ORDER BY c.id",
      [],
    ],
    ['IN list and a number', 'SELECT * FROM c WHERE c.pk = @pk AND c.n IN (1, 2) ORDER BY c.id', []],
    [
      'a condition the planner does not index',
      'SELECT * FROM c WHERE c.pk = @pk AND STARTSWITH(c.key, "k1") ORDER BY c.id',
      [],
    ],
    ['no matches for a value of another type', "SELECT * FROM c WHERE c.pk = @pk AND c.n = '1'", []],
  ];

  it.each(cases)('%s: the same items as evaluating over the partition, page by page', async (_name, sql, params) => {
    const parameters = [{ name: '@pk', value: 'A' }, ...params];
    const expected = reference(sql, A, parameters);
    for (const maxItemCount of [7, 100, 1000]) {
      const got = await all(container, sql, parameters, { partitionKey: 'A', maxItemCount });
      expect(got.items).toEqual(expect.arrayContaining(expected));
      expect(got.items).toHaveLength(expected.length);
      if (/ORDER BY/.test(sql)) expect(got.items).toEqual(expected);
    }
  });

  it.each([
    ['no condition', 'SELECT VALUE COUNT(1) FROM c WHERE c.pk = @pk', []],
    [
      'a range',
      'SELECT VALUE COUNT(1) FROM c WHERE c.pk = @pk AND (c.at > @lo AND c.at <= @hi)',
      [
        { name: '@lo', value: '2026-01-03' },
        { name: '@hi', value: '2026-01-20' },
      ],
    ],
    ['an equality', "SELECT VALUE COUNT(1) FROM c WHERE c.pk = @pk AND c.kind = 'b'", []],
    ['two conditions', "SELECT VALUE COUNT(1) FROM c WHERE c.pk = @pk AND c.kind = 'b' AND c.n >= 3", []],
  ] as Array<[string, string, SqlParameter[]]>)(
    'COUNT with %s counts inside the partition',
    async (_name, sql, params) => {
      const parameters = [{ name: '@pk', value: 'B' }, ...params];
      const got = await all(container, sql, parameters, { partitionKey: 'B' });
      expect(got.items).toEqual(reference(sql, B, parameters));
    },
  );

  it('a query with a partition key never sees documents of another partition, even without the key in its text', async () => {
    const got = await all(container, 'SELECT * FROM c WHERE c.n = 1 ORDER BY c.id', [], {
      partitionKey: 'B',
      maxItemCount: 50,
    });
    expect(got.items.length).toBeGreaterThan(0);
    expect(got.items.every((id) => String(id).startsWith('B-'))).toBe(true);
  });

  it('a cross-partition keyset query pages over every partition in id order', async () => {
    const sql = "SELECT * FROM c WHERE c.link.status = 'pending' AND c.id > @after ORDER BY c.id";
    const parameters = [{ name: '@after', value: 'A-00100' }];
    const got = await all(container, sql, parameters, { maxItemCount: 9 });
    expect(got.items).toEqual(reference(sql, [...A, ...B], parameters));
    expect(got.pages).toBeGreaterThan(1);
  });

  it('TOP with keyset paging returns the first items after the id', async () => {
    const sql = 'SELECT TOP 5 * FROM c WHERE c.pk = @pk AND (c.id > @after) ORDER BY c.id';
    const parameters = [
      { name: '@pk', value: 'A' },
      { name: '@after', value: 'A-00297' },
    ];
    const got = await all(container, sql, parameters, { partitionKey: 'A', maxItemCount: 5 });
    expect(got.items).toEqual(['A-00298', 'A-00299']);
  });

  it('a query that does not parse is refused with 400', async () => {
    await expect(container.items.query('SELECT FROM WHERE', { partitionKey: 'A' }).fetchNext()).rejects.toMatchObject({
      code: 400,
    });
  });
});

describe('local Cosmos engine: writes', () => {
  let cosmos: LocalCosmos;
  let client: CosmosClient;
  let container: Container;

  beforeAll(async () => {
    cosmos = await startLocalCosmos({ port: 0 });
    ({ client, container } = await open(cosmos));
  });
  afterAll(async () => {
    client.dispose();
    await cosmos.close();
  });

  it('unique keys hold per partition: 409 inside one, allowed in another; a replace to a taken key is 409', async () => {
    await container.items.create(docOf('U1', 1));
    await expect(container.items.create({ ...docOf('U1', 1), id: 'other' })).rejects.toMatchObject({ code: 409 });
    await container.items.create({ ...docOf('U2', 1) });
    await container.items.create(docOf('U1', 2));
    await expect(container.item('U1-00002', 'U1').replace({ ...docOf('U1', 2), key: 'k1' })).rejects.toMatchObject({
      code: 409,
    });
    // After a delete the key is free again.
    await container.item('U1-00001', 'U1').delete();
    await container.item('U1-00002', 'U1').replace({ ...docOf('U1', 2), key: 'k1' });
    const { resources } = await container.items
      .query(
        { query: 'SELECT VALUE c.id FROM c WHERE c.key = @k', parameters: [{ name: '@k', value: 'k1' }] },
        { partitionKey: 'U1' },
      )
      .fetchAll();
    expect(resources).toEqual(['U1-00002']);
  });

  it('a replace with a stale ETag is 412; with the current one it succeeds', async () => {
    const { resource } = await container.items.create(docOf('E', 1));
    await container
      .item('E-00001', 'E')
      .replace({ ...docOf('E', 1), n: 100 }, { accessCondition: { type: 'IfMatch', condition: resource!._etag } });
    await expect(
      container
        .item('E-00001', 'E')
        .replace({ ...docOf('E', 1), n: 101 }, { accessCondition: { type: 'IfMatch', condition: resource!._etag } }),
    ).rejects.toMatchObject({ code: 412 });
  });

  it('a transactional batch with a failing operation writes nothing', async () => {
    await container.items.create(docOf('T', 3));
    const res = await container.items.batch(
      [1, 2, 3, 4].map((i) => ({ operationType: 'Create' as const, resourceBody: docOf('T', i) })),
      'T',
    );
    expect(res.result?.map((r) => r.statusCode)).toEqual([424, 424, 409, 424]);
    const { resources } = await container.items.query('SELECT VALUE c.id FROM c', { partitionKey: 'T' }).fetchAll();
    expect(resources).toEqual(['T-00003']);
    const ok = await container.items.batch(
      [1, 2].map((i) => ({ operationType: 'Create' as const, resourceBody: docOf('T', i) })),
      'T',
    );
    expect(ok.result?.map((r) => r.statusCode)).toEqual([201, 201]);
  });
});

describe('local Cosmos engine: persistence', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cosmos-engine-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('keeps databases, containers, documents, deletes and unique keys across a restart on the same folder', async () => {
    let cosmos = await startLocalCosmos({ port: 0, dataDir: dir });
    let { client, container } = await open(cosmos);
    for (let i = 0; i < 50; i++) await container.items.create(docOf('P', i));
    await container.item('P-00007', 'P').delete();
    const { resource: replaced } = await container.item('P-00008', 'P').replace({ ...docOf('P', 8), n: 99 });
    await container.items.batch([{ operationType: 'Create' as const, resourceBody: docOf('Q', 1) }], 'Q');
    client.dispose();
    await cosmos.close();

    cosmos = await startLocalCosmos({ port: 0, dataDir: dir });
    expect(cosmos.loadedDocuments).toBe(50);
    ({ client, container } = await open(cosmos));
    const { resource } = await container.item('P-00008', 'P').read<Doc & { _etag: string }>();
    expect(resource).toMatchObject({ n: 99, _etag: replaced!._etag });
    expect((await container.item('P-00007', 'P').read()).statusCode).toBe(404);
    expect((await container.item('Q-00001', 'Q').read()).statusCode).toBe(200);
    await expect(container.items.create({ ...docOf('P', 3), id: 'dup' })).rejects.toMatchObject({ code: 409 });
    const { resources } = await container.items.query('SELECT VALUE COUNT(1) FROM c', { partitionKey: 'P' }).fetchAll();
    expect(resources).toEqual([49]);
    // New documents after the restart get resource ids of their own.
    const { resource: fresh } = await container.items.create(docOf('P', 60));
    const { resources: rids } = await container.items
      .query<string>('SELECT VALUE c._rid FROM c', { partitionKey: 'P' })
      .fetchAll();
    expect(new Set(rids).size).toBe(rids.length);
    expect(fresh).toBeDefined();
    client.dispose();
    await cosmos.close();
  });

  it('time to live: turned on for a container that has documents (they stay), items expire through the SDK, and both hold across a restart', async () => {
    let cosmos = await startLocalCosmos({ port: 0, dataDir: dir });
    let { client, container } = await open(cosmos);
    for (let i = 0; i < 5; i++) await container.items.create(docOf('L', i));
    const { resource: definition } = await container.read();
    await container.replace({ ...definition!, defaultTtl: -1 });
    expect((await container.read()).resource?.defaultTtl).toBe(-1);
    await container.items.create({ ...docOf('L', 10), ttl: 1 });
    await container.items.create({ ...docOf('L', 11), ttl: 3600 });
    const ids = async () =>
      (await container.items.query<string>('SELECT VALUE c.id FROM c ORDER BY c.id', { partitionKey: 'L' }).fetchAll())
        .resources;
    expect(await ids()).toHaveLength(7);
    await new Promise((r) => setTimeout(r, 1500));
    expect((await container.item('L-00010', 'L').read()).statusCode).toBe(404);
    expect(await ids()).toEqual(['L-00000', 'L-00001', 'L-00002', 'L-00003', 'L-00004', 'L-00011']);
    client.dispose();
    await cosmos.close();

    cosmos = await startLocalCosmos({ port: 0, dataDir: dir });
    ({ client, container } = await open(cosmos));
    expect((await container.read()).resource?.defaultTtl).toBe(-1);
    expect(await ids()).toEqual(['L-00000', 'L-00001', 'L-00002', 'L-00003', 'L-00004', 'L-00011']);
    // Still honoured after the restart.
    await container.items.create({ ...docOf('L', 12), ttl: 1 });
    await new Promise((r) => setTimeout(r, 1500));
    expect((await container.item('L-00012', 'L').read()).statusCode).toBe(404);
    client.dispose();
    await cosmos.close();
  });

  it("the service's schema step turns time to live on and sets the indexing policy of a links container made before it, keeping the claims", async () => {
    const cosmos = await startLocalCosmos({ port: 0, dataDir: dir });
    const client = new CosmosClient({
      endpoint: cosmos.endpoint,
      key: LOCAL_COSMOS_KEY,
      connectionPolicy: { enableEndpointDiscovery: false },
    });
    const { database } = await client.databases.createIfNotExists({ id: 'svc' });
    const { container: links } = await database.containers.createIfNotExists({
      id: 'links',
      partitionKey: { paths: ['/pk'] },
    });
    await links.items.create({ id: 'user-1', pk: 'tenant-1', claimedAt: '2026-01-01T00:00:00.000Z' });
    expect((await links.read()).resource?.defaultTtl).toBeUndefined();
    const store = createStore({ endpoint: cosmos.endpoint, key: LOCAL_COSMOS_KEY, database: 'svc' });
    await store.ensureSchema();
    expect((await links.read()).resource?.defaultTtl).toBe(CONTAINERS.links.defaultTtl);
    // The indexing policy is the service's too (made before it, the container indexed every path).
    expect((await links.read()).resource?.indexingPolicy).toMatchObject({
      includedPaths: CONTAINERS.links.indexingPolicy.includedPaths,
      excludedPaths: CONTAINERS.links.indexingPolicy.excludedPaths,
    });
    expect((await links.item('user-1', 'tenant-1').read()).resource).toMatchObject({
      claimedAt: '2026-01-01T00:00:00.000Z',
    });
    await store.ensureSchema();
    store.dispose();
    client.dispose();
    await cosmos.close();
  });

  it('every acknowledged write survives kill -9 of the process', async () => {
    const bundle = path.join(dir, 'engine-child.js');
    buildSync({
      stdin: {
        contents: `const { startLocalCosmos } = require(${JSON.stringify(path.resolve(__dirname, '../../../devhost/cosmosServer.ts'))});
startLocalCosmos({ port: 0, dataDir: process.argv[2] }).then((c) => console.log(c.endpoint));`,
        resolveDir: dir,
        loader: 'ts',
      },
      bundle: true,
      platform: 'node',
      packages: 'external',
      outfile: bundle,
      logLevel: 'silent',
    });
    const data = path.join(dir, 'data');
    const child = spawn(process.execPath, [bundle, data], {
      env: { ...process.env, NODE_PATH: path.resolve(__dirname, '../../../node_modules') },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const endpoint = await new Promise<string>((resolve, reject) => {
      child.stdout.once('data', (b: Buffer) => resolve(b.toString().trim()));
      child.once('exit', () => reject(new Error('engine child exited')));
    });
    const client = new CosmosClient({
      endpoint,
      key: LOCAL_COSMOS_KEY,
      connectionPolicy: { enableEndpointDiscovery: false },
    });
    const { database } = await client.databases.createIfNotExists({ id: 'db' });
    const { container } = await database.containers.createIfNotExists(structuredClone(CONTAINER));
    const acknowledged: string[] = [];
    for (let i = 0; i < 200; i++) acknowledged.push((await container.items.create(docOf('K', i))).resource!.id);
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    client.dispose();

    const cosmos = await startLocalCosmos({ port: 0, dataDir: data });
    const again = await open(cosmos);
    const { resources } = await again.container.items
      .query<string>('SELECT VALUE c.id FROM c ORDER BY c.id', { partitionKey: 'K' })
      .fetchAll();
    expect(resources).toEqual(acknowledged);
    again.client.dispose();
    await cosmos.close();
  });
});

describe('local Cosmos engine: compaction while running', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cosmos-compact-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  type Versioned = { id: string; pk: string; key: string; v: number; pad: string };
  const versioned = (i: number, v: number): Versioned => ({
    id: `d-${pad(i)}`,
    pk: `p${i % 4}`,
    key: `k${i}`,
    v,
    pad: 'x'.repeat(200),
  });

  async function contents(container: Container): Promise<Map<string, { v: number; etag: string }>> {
    const { resources } = await container.items
      .query<{ id: string; v: number; _etag: string }>('SELECT c.id, c.v, c._etag FROM c')
      .fetchAll();
    return new Map(resources.map((r) => [r.id, { v: r.v, etag: r._etag }]));
  }

  const journalFiles = (folder: string) => fs.readdirSync(folder).filter((f) => /^journal(\.\d+)?\.jsonl$/.test(f));
  const bytes = (folder: string, files: string[]) =>
    files.reduce((sum, f) => sum + fs.statSync(path.join(folder, f)).size, 0);

  it('compacts while running once the journal outgrows a quarter of the snapshot: the journal stays bounded and a restart finds the same data', async () => {
    const data = path.join(dir, 'data');
    const steps: string[] = [];
    const minBytes = 30_000;
    let cosmos = await startLocalCosmos({
      port: 0,
      dataDir: data,
      compaction: { minBytes, chunkRecords: 25, onStep: (s) => steps.push(s) },
    });
    let { client, container } = await open(cosmos);
    const docs = 200;
    let written = 0;
    let largestJournal = 0;
    for (let round = 0; round < 12; round++) {
      for (let i = 0; i < docs; i++) {
        await container.items.upsert(versioned(i, round));
        written++;
      }
      largestJournal = Math.max(largestJournal, bytes(data, journalFiles(data)));
    }
    const ended = () => steps.filter((s) => s === 'deleted' || s === 'abandoned').length;
    while (steps.filter((s) => s === 'rotated').length !== ended()) await new Promise((r) => setTimeout(r, 10));
    expect(steps).not.toContain('abandoned');
    const compactions = steps.filter((s) => s === 'deleted').length;
    const snapshot = fs.statSync(path.join(data, 'snapshot.jsonl')).size;
    // 2,400 writes of ~330 bytes: without compaction the journal would hold ~800 kB
    expect(written).toBe(2400);
    expect(compactions).toBeGreaterThanOrEqual(4);
    expect(largestJournal).toBeLessThan(2 * Math.max(minBytes, snapshot / 4) + 2 * docs * 400);
    expect(fs.readdirSync(data).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    const before = await contents(container);
    expect(before.size).toBe(docs);
    expect([...before.values()].every((d) => d.v === 11)).toBe(true);
    client.dispose();
    await cosmos.close();

    cosmos = await startLocalCosmos({ port: 0, dataDir: data });
    ({ client, container } = await open(cosmos));
    expect(cosmos.loadedDocuments).toBe(docs);
    expect(await contents(container)).toEqual(before);
    client.dispose();
    await cosmos.close();
  });

  it('a crash at any step of a compaction loses no acknowledged write, and writes made during the compaction are kept', async () => {
    const data = path.join(dir, 'data');
    const docs = 300;
    const acknowledged = new Map<string, number>();
    const crashes: Array<{ step: string; folder: string; acknowledged: Map<string, number> }> = [];
    let compacting = false;
    let writesDuringCompaction = 0;
    let compactions = 0;
    const onStep = (step: string) => {
      if (step === 'rotated') compacting = true;
      // the folder as a kill -9 at this instant leaves it (every acknowledged write is with the operating system)
      if (compactions === 0 && (step !== 'chunk' || crashes.filter((c) => c.step === 'chunk').length < 3)) {
        const folder = path.join(dir, `crash-${crashes.length}-${step}`);
        fs.cpSync(data, folder, { recursive: true });
        crashes.push({ step, folder, acknowledged: new Map(acknowledged) });
      }
      if (step === 'deleted' || step === 'abandoned') {
        compacting = false;
        compactions++;
      }
    };
    const cosmos = await startLocalCosmos({
      port: 0,
      dataDir: data,
      compaction: { minBytes: 40_000, chunkRecords: 10, onStep },
    });
    const { client, container } = await open(cosmos);
    // four writers, each rewriting its own documents in turn, so every document's versions are acknowledged in order
    const writer = async (w: number) => {
      for (let round = 0; round < 3; round++) {
        for (let i = w; i < docs; i += 4) {
          await container.items.upsert(versioned(i, round));
          acknowledged.set(`d-${pad(i)}`, round);
          if (compacting) writesDuringCompaction++;
        }
      }
    };
    await Promise.all([0, 1, 2, 3].map(writer));
    while (compacting) await new Promise((r) => setTimeout(r, 10));
    const final = await contents(container);
    client.dispose();
    await cosmos.close();

    expect(compactions).toBeGreaterThanOrEqual(1);
    expect(writesDuringCompaction).toBeGreaterThan(0);
    expect(new Set(crashes.map((c) => c.step))).toEqual(new Set(['rotated', 'chunk', 'written', 'renamed', 'deleted']));
    expect([...final.values()].every((d) => d.v === 2)).toBe(true);

    for (const crash of [...crashes, { step: 'end', folder: data, acknowledged }]) {
      const again = await startLocalCosmos({ port: 0, dataDir: crash.folder });
      const c = await open(again);
      const found = await contents(c.container);
      const lost = [...crash.acknowledged].filter(([id, v]) => (found.get(id)?.v ?? -1) < v);
      expect({ step: crash.step, lost }).toEqual({ step: crash.step, lost: [] });
      c.client.dispose();
      await again.close();
    }
    // every document is there with its last version after the run itself
    const again = await startLocalCosmos({ port: 0, dataDir: data });
    const c = await open(again);
    expect(await contents(c.container)).toEqual(final);
    c.client.dispose();
    await again.close();
  });
});
