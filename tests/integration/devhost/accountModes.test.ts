/**
 * The local engine's account modes through the real SDK, which sends `priorityLevel` as the header
 * x-ms-cosmos-priority-level. Serverless (the default) counts the priority but throttles by arrival alone, as
 * Azure does not support priority-based execution on serverless accounts; provisioned keeps for high-priority
 * requests what they used in the last second.
 */
import { CosmosClient, PriorityLevel } from '@azure/cosmos';
import { startLocalCosmos, LOCAL_COSMOS_KEY } from '../../../devhost/cosmosServer';
import type { CosmosMode } from '../../../devhost/cosmos/throughput';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * At 20 RU/s: a small high-priority write, then in the next one-second window a large low-priority write (several
 * seconds of the budget), then a high-priority read. The read's status, with what the engine counted.
 */
async function highAfterLargeLow(mode?: CosmosMode): Promise<{ status: number; lowRequests: number; mode: string }> {
  for (let attempt = 1; ; attempt++) {
    const cosmos = await startLocalCosmos({ port: 0, ruPerSecond: 20, mode });
    const client = new CosmosClient({
      endpoint: cosmos.endpoint,
      key: LOCAL_COSMOS_KEY,
      connectionPolicy: { enableEndpointDiscovery: false },
    });
    try {
      const { database } = await client.databases.createIfNotExists({ id: 'db' });
      const { container } = await database.containers.createIfNotExists({
        id: 'items',
        partitionKey: { paths: ['/pk'] },
      });
      const t0 = performance.now();
      await container.items.create({ id: 'small', pk: 'p' }); // opens the container's first window
      await sleep(1_050);
      await container.items.create(
        { id: 'big', pk: 'p', text: 'x'.repeat(200 * 1024) },
        { priorityLevel: PriorityLevel.Low },
      );
      const res = await fetch(`${cosmos.endpoint}/dbs/db/colls/items/docs/small`, {
        headers: { 'x-ms-documentdb-partitionkey': '["p"]', authorization: 'local' },
      });
      await res.arrayBuffer();
      // Both writes and the read fell in the windows meant (a stalled machine tries again).
      if (performance.now() - t0 < 1_990 || attempt >= 3)
        return { status: res.status, lowRequests: cosmos.requestUnits().lowRequests, mode: cosmos.mode() };
    } finally {
      client.dispose();
      await cosmos.close();
    }
  }
}

describe('local Cosmos engine: account modes', () => {
  it('serverless (the default) ignores priority: the high-priority read waits out the low-priority write too', async () => {
    expect(await highAfterLargeLow()).toEqual({ status: 429, lowRequests: 1, mode: 'serverless' });
  });

  it('provisioned honours it: the high-priority read is served from what high priority used the second before', async () => {
    expect(await highAfterLargeLow('provisioned')).toEqual({ status: 200, lowRequests: 1, mode: 'provisioned' });
  });
});
