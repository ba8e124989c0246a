/**
 * The local engine charges request units as Cosmos DB does and, with a budget, throttles like it:
 * beyond the container's RU/s it answers 429 with x-ms-retry-after-ms and sub-status 3200, and
 * the real @azure/cosmos SDK waits and retries until its writes succeed.
 */
import { CosmosClient, type Container } from '@azure/cosmos';
import { startLocalCosmos, LOCAL_COSMOS_KEY, type LocalCosmos } from '../../../devhost/cosmosServer';
import { createCharge, pointReadCharge, queryPageCharge } from '../../../devhost/cosmos/requestCharge';

const CONTAINER = { id: 'items', partitionKey: { paths: ['/pk'] } };

async function open(cosmos: LocalCosmos, id = CONTAINER.id): Promise<{ client: CosmosClient; container: Container }> {
  // The SDK's own retry policy for 429 (9 retries, 30 s at most), as a client gets it by default.
  const client = new CosmosClient({
    endpoint: cosmos.endpoint,
    key: LOCAL_COSMOS_KEY,
    connectionPolicy: { enableEndpointDiscovery: false },
  });
  const { database } = await client.databases.createIfNotExists({ id: 'db' });
  const { container } = await database.containers.createIfNotExists({ ...CONTAINER, id });
  return { client, container };
}

const docOf = (i: number, kb: number) => ({ id: `d${i}`, pk: 'p', text: 'x'.repeat(kb * 1024) });

describe('local Cosmos engine: request units', () => {
  it('every response carries the model charge: writes, point reads, queries, and a batch as the sum of its operations', async () => {
    const cosmos = await startLocalCosmos({ port: 0 });
    const { client, container } = await open(cosmos);
    try {
      const created = await container.items.create(docOf(1, 1));
      expect(created.requestCharge).toBeCloseTo(
        createCharge(created.resource as unknown as Record<string, unknown>),
        2,
      );
      expect(created.requestCharge).toBeGreaterThan(5);
      const read = await container.item('d1', 'p').read();
      expect(read.requestCharge).toBeCloseTo(pointReadCharge(read.resource as unknown as Record<string, unknown>), 2);
      const big = await container.items.create(docOf(2, 100));
      const bigRead = await container.item('d2', 'p').read();
      expect(bigRead.requestCharge).toBeGreaterThan(read.requestCharge);
      expect(big.requestCharge).toBeGreaterThan(created.requestCharge);
      const missing = await container.item('nope', 'p').read();
      expect([missing.statusCode, missing.requestCharge]).toEqual([404, 1]);

      const page = await container.items.query('SELECT * FROM c WHERE c.pk = "p"', { partitionKey: 'p' }).fetchNext();
      expect(page.resources).toHaveLength(2);
      expect(page.requestCharge).toBeCloseTo(queryPageCharge(page.resources), 2);

      const batch = await container.items.batch(
        [
          { operationType: 'Create', resourceBody: docOf(3, 2) },
          { operationType: 'Read', id: 'd1', partitionKey: 'p' },
          { operationType: 'Delete', id: 'd2', partitionKey: 'p' },
        ],
        'p',
      );
      const results = batch.result ?? [];
      expect(results.map((r) => r.statusCode)).toEqual([201, 200, 204]);
      expect(results[0]!.requestCharge).toBeCloseTo(
        createCharge(results[0]!.resourceBody as Record<string, unknown>),
        2,
      );
      expect(results[1]!.requestCharge).toBeCloseTo(read.requestCharge, 2);
      expect(results[2]!.requestCharge).toBeCloseTo(big.requestCharge, 2);
      const total = Number(batch.headers['x-ms-request-charge']);
      expect(total).toBeCloseTo(
        results.reduce((n, r) => n + r.requestCharge, 0),
        1,
      );

      const usage = cosmos.requestUnits();
      expect(usage.throttled).toBe(0);
      expect(usage.byContainer['db/items']?.charged).toBeCloseTo(
        created.requestCharge +
          read.requestCharge +
          big.requestCharge +
          bigRead.requestCharge +
          1 +
          page.requestCharge +
          total,
        1,
      );
    } finally {
      client.dispose();
      await cosmos.close();
    }
  });

  it('beyond the budget a burst of writes is answered 429 with x-ms-retry-after-ms, and the SDK retries until every write succeeds', async () => {
    // 20 RU/s: a 10 KB item costs about 8.6 RU to write, so 10 at once are three times the second's budget.
    const cosmos = await startLocalCosmos({ port: 0, ruPerSecond: 20 });
    const { client, container } = await open(cosmos);
    try {
      const writes = await Promise.all(Array.from({ length: 10 }, (_, i) => container.items.create(docOf(i, 10))));
      expect(writes.map((w) => w.statusCode)).toEqual(Array(10).fill(201));
      const retried = writes.map((w) => Number(w.headers['x-ms-throttle-retry-count'] ?? 0));
      expect(Math.max(...retried)).toBeGreaterThan(0);
      const usage = cosmos.requestUnits().byContainer['db/items']!;
      expect(usage.throttled).toBeGreaterThanOrEqual(retried.reduce((a, b) => a + b, 0));
      expect(usage.throttled).toBeGreaterThan(0);
      const count = await container.items.query('SELECT VALUE COUNT(1) FROM c', { partitionKey: 'p' }).fetchAll();
      expect(count.resources).toEqual([10]);

      // A write far beyond the budget leaves the container in debt: the next request is refused as Cosmos DB refuses it.
      const other = await open(cosmos, 'other');
      await other.container.items.create(docOf(100, 200));
      const res = await fetch(`${cosmos.endpoint}/dbs/db/colls/other/docs/d100`, {
        headers: { 'x-ms-documentdb-partitionkey': '["p"]', authorization: 'local' },
      });
      expect(res.status).toBe(429);
      expect(Number(res.headers.get('x-ms-retry-after-ms'))).toBeGreaterThan(100);
      expect(res.headers.get('x-ms-substatus')).toBe('3200');
      expect(res.headers.get('x-ms-request-charge')).toBe('0');
      expect(((await res.json()) as { code: string }).code).toBe('TooManyRequests');
      // Another container has its own budget.
      expect((await container.item('d1', 'p').read()).statusCode).toBe(200);
      other.client.dispose();
    } finally {
      client.dispose();
      await cosmos.close();
    }
  });
});
