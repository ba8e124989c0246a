/**
 * SCIM paging whichever instance serves each page: two instances (separate processes, so nothing is
 * shared but the store) and Users deleted and created between pages. Every User that exists from the
 * first page to the last is returned exactly once to a lone reader, and at least once to readers of the
 * same list at the same time. A cursor belongs to its integration only.
 */
import { startTestStack, type TestStack } from '../support/stack';
import { scim, userBody } from '../support/scim';
import { startSecondInstance, type SecondInstance } from '../support/secondInstance';
import { DEV_CLIENTS, type DevClient } from '../../devhost/devData';
import { services } from '../../lib/services';
import { partitionKey } from '../../lib/identities/model';
import { PAGE_CURSOR_TTL_SECONDS, PageCursors, pageCursorPartition } from '../../lib/scim/pageCursors';

type Api = ReturnType<typeof scim>;

describe('SCIM paging across instances', () => {
  let stack: TestStack;
  let second: SecondInstance;

  beforeAll(async () => {
    stack = await startTestStack({ env: { SCIM_RATE_LIMIT_PER_SECOND: '100000' } });
    second = await startSecondInstance(stack);
  }, 120_000);
  afterAll(async () => {
    await second?.stop();
    await stack?.stop();
  });

  async function apis(client: DevClient): Promise<{ a: Api; b: Api }> {
    const token = await stack.token(client);
    return { a: scim(stack, token), b: scim({ ...stack, base: second.base }, token) };
  }

  async function createUsers(api: Api, n: number): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < n; i += 10) {
      const batch = await Promise.all(Array.from({ length: Math.min(10, n - i) }, () => api.create(userBody())));
      for (const res of batch) {
        expect(res.status).toBe(201);
        ids.push(res.body.id);
      }
    }
    return ids;
  }

  async function page(api: Api, startIndex: number, count: number): Promise<string[]> {
    const res = await api.list(`?startIndex=${startIndex}&count=${count}`);
    expect(res.status).toBe(200);
    return res.body.Resources.map((r) => r.id);
  }

  it('page 1 from one instance, Users of page 1 deleted, page 2 from the other: no User is missed or repeated', async () => {
    const { a, b } = await apis(DEV_CLIENTS.scim);
    const created = await createUsers(a, 30);
    const seen: string[] = [];
    const first = await page(a, 1, 10);
    seen.push(...first);
    const deleted = [first[2], first[5], first[9]] as string[];
    for (const [i, id] of deleted.entries()) expect((await (i % 2 ? a : b).delete(id)).status).toBe(204);
    seen.push(...(await page(b, 11, 10)));
    seen.push(...(await page(a, 21, 10)));
    expect(await page(b, 31, 10)).toEqual([]);

    const stable = created.filter((id) => !deleted.includes(id));
    expect(new Set(seen).size).toBe(seen.length);
    expect(stable.filter((id) => !seen.includes(id))).toEqual([]);
  });

  it('pages served by alternate instances while Users are deleted and created between pages', async () => {
    const { a, b } = await apis(DEV_CLIENTS.scim2);
    const created = await createUsers(a, 50);
    const deleted = new Set<string>();
    const seen: string[] = [];
    const count = 7;
    for (let startIndex = 1, n = 0; ; startIndex += count, n++) {
      const ids = await page(n % 2 ? b : a, startIndex, count);
      seen.push(...ids);
      if (ids.length < count) break;
      // One User of the page just served goes (through the instance that will not serve the next
      // page) and a new one comes.
      const gone = ids[n % count] as string;
      deleted.add(gone);
      expect((await (n % 2 ? b : a).delete(gone)).status).toBe(204);
      expect((await (n % 2 ? a : b).create(userBody())).status).toBe(201);
    }
    const stable = created.filter((id) => !deleted.has(id));
    expect(deleted.size).toBeGreaterThan(5);
    expect(new Set(seen).size).toBe(seen.length);
    expect(stable.filter((id) => !seen.includes(id))).toEqual([]);
  });

  it("two readers of one list: the later reader's page 1 does not move the earlier reader past Users it has not seen", async () => {
    const { a, b } = await apis(DEV_CLIENTS.scim);
    const since = new Date(Date.now() - 1000).toISOString();
    const created = await createUsers(a, 30);
    const filter = `&filter=${encodeURIComponent(`meta.lastModified ge "${since}"`)}`;
    const list = async (api: Api, startIndex: number) => {
      const res = await api.list(`?startIndex=${startIndex}&count=10${filter}`);
      expect(res.status).toBe(200);
      return res.body.Resources.map((r) => r.id);
    };
    const readAll = async (api: Api, first: string[]) => {
      const seen = [...first];
      for (let startIndex = 11; ; startIndex += 10) {
        const ids = await list(api, startIndex);
        seen.push(...ids);
        if (ids.length < 10) return seen;
      }
    };
    const earlierFirst = await list(a, 1);
    const deleted = [earlierFirst[1], earlierFirst[4], earlierFirst[8]] as string[];
    for (const id of deleted) expect((await a.delete(id)).status).toBe(204);
    // The later reader's page 1 ends three Users further on.
    const laterFirst = await list(b, 1);
    const stable = created.filter((id) => !deleted.includes(id));
    const earlier = await readAll(a, earlierFirst);
    expect(stable.filter((id) => !earlier.includes(id))).toEqual([]);
    expect(new Set(earlier).size).toBe(earlier.length);
    const later = await readAll(b, laterFirst);
    expect(stable.filter((id) => !later.includes(id))).toEqual([]);
  });

  it('a cursor of one integration is never used for another: same filter, same startIndex, its own Users', async () => {
    const x = await apis(DEV_CLIENTS.scim);
    const y = await apis(DEV_CLIENTS.scim2);
    const yAll = await page(y.a, 1, 100);
    expect(yAll.length).toBeGreaterThan(10);
    // X's page 1 leaves a cursor for startIndex 6; Y asks for startIndex 6 on the other instance.
    expect(await page(x.a, 1, 5)).toHaveLength(5);
    expect(await page(y.b, 6, 5)).toEqual(yAll.slice(5, 10));
  });

  it('cursors live in a partition of their own integration with a 10-minute time to live; one planted there for another integration is not honoured', async () => {
    const cursors = new PageCursors(services().store);
    const scopeX = `${DEV_CLIENTS.scim.tenantId}|integration-x`;
    const scopeY = `${DEV_CLIENTS.scim.tenantId}|integration-y`;
    await cursors.save(scopeX, 'same filter and startIndex', 'id-of-x');
    expect(await cursors.find(scopeX, 'same filter and startIndex')).toBe('id-of-x');
    expect(await cursors.find(scopeY, 'same filter and startIndex')).toBeUndefined();

    const links = services().store.collection<{ id: string; pk: string; scope: string; after: string; ttl: number }>(
      'links',
    );
    const [xDoc] = (await links.queryPartitionPage(pageCursorPartition(scopeX), 'SELECT *', '')).items;
    expect(xDoc).toMatchObject({ scope: scopeX, after: 'id-of-x', ttl: PAGE_CURSOR_TTL_SECONDS });
    expect(PAGE_CURSOR_TTL_SECONDS).toBe(600);
    // X's document copied into Y's partition under every id Y could look for: still X's, so not used.
    await cursors.save(scopeY, 'same filter and startIndex', 'id-of-y');
    const [yDoc] = (await links.queryPartitionPage(pageCursorPartition(scopeY), 'SELECT *', '')).items;
    await links.upsert({ id: yDoc!.id, pk: pageCursorPartition(scopeY), scope: scopeX, after: 'id-of-x', ttl: 600 });
    expect(await cursors.find(scopeY, 'same filter and startIndex')).toBeUndefined();
  });

  it('a cursor holds no filter value: only the integration, an identity id and a digest of the filter and startIndex', async () => {
    const { a } = await apis(DEV_CLIENTS.scim2);
    const marker = '2001-02-03T04:05:06.789Z';
    const res = await a.list(`?startIndex=1&count=2&filter=${encodeURIComponent(`meta.lastModified gt "${marker}"`)}`);
    expect(res.status).toBe(200);
    const integration = (await services().integrations.findByClientId(
      DEV_CLIENTS.scim2.tenantId,
      DEV_CLIENTS.scim2.clientId,
    ))!;
    const links = services().store.collection<{ id: string; pk: string }>('links');
    const docs = (
      await links.queryPartitionPage(
        pageCursorPartition(partitionKey(DEV_CLIENTS.scim2.tenantId, integration.id)),
        'SELECT *',
        '',
      )
    ).items;
    expect(docs.length).toBeGreaterThan(0);
    for (const doc of docs) {
      expect(
        Object.keys(doc)
          .filter((k) => !k.startsWith('_'))
          .sort(),
      ).toEqual(['after', 'id', 'pk', 'scope', 'ttl']);
      expect(JSON.stringify(doc)).not.toMatch(/2001-02-03|04:05:06|lastModified/);
    }
  });
});
