/** The in-memory store answers as Cosmos DB and @azure/cosmos do, so unit tests of orchestrators can trust it. */
import { isStoreError, StoreError } from '../../../lib/store/errors';
import type { StoredDoc } from '../../../lib/store/store';
import { createMemoryStore } from '../../support/memoryStore';

interface Person extends StoredDoc {
  tenantId: string;
  externalIdKey: string;
  userNameKey: string;
  name: string;
  link?: { status: string };
}

const person = (pk: string, id: string, name = id): Person => ({
  id,
  pk,
  tenantId: 't1',
  externalIdKey: `e-${id}`,
  userNameKey: `u-${id}`,
  name,
});

async function failure(p: Promise<unknown>): Promise<StoreError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof StoreError)) throw new Error(`expected a StoreError, got ${String(err)}`);
  return err;
}

describe('memory store', () => {
  it('creates, reads, replaces with entity tags and deletes, as Cosmos DB answers', async () => {
    const memory = createMemoryStore();
    const people = memory.store.collection<Person>('identities');
    const created = await people.create(person('t1|a', '1'));
    expect(created._etag).toEqual(expect.any(String));
    expect(created).not.toHaveProperty('_rid');
    expect((await people.read('t1|a', '1'))?.name).toBe('1');
    expect(await people.read('t1|b', '1')).toBeUndefined();

    const replaced = await people.replace({ ...person('t1|a', '1'), name: 'new' }, created._etag);
    expect(replaced._etag).not.toBe(created._etag);
    expect((await failure(people.replace(person('t1|a', '1'), created._etag))).failure).toBe('preconditionFailed');
    expect((await failure(people.replace(person('t1|a', 'missing')))).failure).toBe('notFound');
    expect(await people.delete('t1|a', '1', created._etag).catch((e: unknown) => e)).toMatchObject({
      failure: 'preconditionFailed',
    });
    expect(await people.delete('t1|a', '1', replaced._etag)).toBe(true);
    expect(await people.delete('t1|a', '1')).toBe(false);
    expect(memory.documents('identities')).toEqual([]);
  });

  it('holds unique keys per logical partition', async () => {
    const memory = createMemoryStore();
    const people = memory.store.collection<Person>('identities');
    await people.create(person('t1|a', '1'));
    const sameKey = { ...person('t1|a', '2'), externalIdKey: 'e-1' };
    expect((await failure(people.create(sameKey))).failure).toBe('conflict');
    expect((await failure(people.create(person('t1|a', '1')))).failure).toBe('conflict');
    // Another partition may hold the same keys.
    await people.create({ ...person('t1|b', '2'), externalIdKey: 'e-1' });
    expect(memory.documents('identities')).toHaveLength(2);
  });

  it('copies documents in and out: a caller changing an object changes nothing stored', async () => {
    const memory = createMemoryStore();
    const people = memory.store.collection<Person>('identities');
    const doc = { ...person('t1|a', '1'), link: { status: 'pending' } };
    const created = await people.create(doc);
    doc.link.status = 'linked';
    (created.link as { status: string }).status = 'linked';
    expect(memory.document<Person>('identities', 't1|a', '1')?.link?.status).toBe('pending');
  });

  it('pages queries with continuation tokens, in one partition or across partitions', async () => {
    const memory = createMemoryStore();
    const people = memory.store.collection<Person>('identities');
    for (let i = 0; i < 7; i++) await people.create(person(i % 2 ? 't1|a' : 't1|b', `p${i}`));
    const spec = { query: 'SELECT * FROM c WHERE c.tenantId = @t', parameters: [{ name: '@t', value: 't1' }] };
    const first = await people.queryPage<Person>(spec, { maxItemCount: 3 });
    expect(first.items).toHaveLength(3);
    expect(first.continuationToken).toEqual(expect.any(String));
    const all = await people.queryAll<Person>(spec, { maxItemCount: 3 });
    expect(all.map((p) => p.id).sort()).toEqual(['p0', 'p1', 'p2', 'p3', 'p4', 'p5', 'p6']);
    const inA = await people.queryAll<Person>(spec, { partitionKey: 't1|a', maxItemCount: 2 });
    expect(inA.map((p) => p.id)).toEqual(['p1', 'p3', 'p5']);
    const ordered = await people.queryPartitionPage<{ id: string }>('t1|b', 'SELECT c.id', '', [], {
      orderBy: 'c.id DESC',
    });
    expect(ordered.items.map((p) => p.id)).toEqual(['p6', 'p4', 'p2', 'p0']);
    expect(memory.indexGaps()).toEqual([]);
  });

  it('records a query on a path the indexing policy leaves out', async () => {
    const memory = createMemoryStore();
    await memory.store
      .collection<Person>('identities')
      .queryPage({ query: 'SELECT * FROM c WHERE c.name = @n', parameters: [{ name: '@n', value: 'x' }] });
    expect(memory.indexGaps()).toEqual([
      expect.objectContaining({ container: 'identities', gaps: [expect.stringContaining('/name')] }),
    ]);
  });

  it('writes a transactional batch all or nothing', async () => {
    const memory = createMemoryStore();
    const people = memory.store.collection<Person>('identities');
    await people.create(person('t1|a', 'taken'));
    const outcomes = await people.batchCreate('t1|a', [
      person('t1|a', 'n1'),
      person('t1|a', 'taken'),
      person('t1|a', 'n2'),
    ]);
    expect(outcomes[1]).toBe('conflict');
    expect(outcomes.filter((o) => o === 'created')).toEqual([]);
    expect(memory.documents('identities').map((d) => d.id)).toEqual(['taken']);
    expect(await people.batchCreate('t1|a', [person('t1|a', 'n1'), person('t1|a', 'n2')])).toEqual([
      'created',
      'created',
    ]);
    expect(memory.writes('identities')).toBe(3);
  });

  it('answers scheduled faults: 503, 412 and 429 with its retry-after', async () => {
    const memory = createMemoryStore();
    const people = memory.store.collection<Person>('identities');
    const unavailable = memory.faults.add({ ops: ['create'], status: 503 });
    const err = await failure(people.create(person('t1|a', '1')));
    expect(err.failure).toBe('unavailable');
    expect(unavailable.hits).toBe(1);
    const created = await people.create(person('t1|a', '1'));

    memory.faults.add({ ops: ['replace'], status: 412 });
    expect((await failure(people.replace(person('t1|a', '1'), created._etag))).failure).toBe('preconditionFailed');

    // Throttling: the store's own client waits out three 429s, the client without retries none.
    const throttled = memory.faults.add({ ops: ['read'], status: 429, retryAfterMs: 2, count: 3 });
    expect(await people.read('t1|a', '1')).toBeDefined();
    expect(throttled.hits).toBe(3);
    memory.faults.add({ ops: ['replace'], status: 429, retryAfterMs: 40 });
    const refused = await failure(people.replace(person('t1|a', '1'), undefined, { retryThrottled: false }));
    expect(refused).toMatchObject({ failure: 'throttled', retryAfterMs: 40 });
    expect(isStoreError(refused, 'throttled')).toBe(true);
  });

  it('lets a fault wait for its turn and pick its target', async () => {
    const memory = createMemoryStore();
    const people = memory.store.collection<Person>('identities');
    const fault = memory.faults.add({
      ops: ['write'],
      container: 'identities',
      skip: 1,
      match: (t) => t.docs.some((d) => d.name === 'x'),
      status: 503,
    });
    await people.create(person('t1|a', '1', 'x'));
    await people.create(person('t1|a', '2', 'y'));
    await expect(people.create(person('t1|a', '3', 'x'))).rejects.toMatchObject({ failure: 'unavailable' });
    await people.create(person('t1|a', '4', 'x'));
    expect(fault.hits).toBe(1);
    expect(memory.documents('identities').map((d) => d.id)).toEqual(['1', '2', '4']);
  });

  it('reports a batch that fails as a whole as the SDK does (wrapped, its cause the store status: throttled)', async () => {
    const memory = createMemoryStore({ sdkRetries: 0 });
    memory.faults.add({ ops: ['batch'], status: 429, retryAfterMs: 1 });
    const outcomes = await memory.store.collection<Person>('identities').batchCreate('t1|a', [person('t1|a', '1')]);
    expect(outcomes).toEqual([expect.objectContaining({ failure: 'throttled' })]);
  });

  it('lets items with a time to live expire', async () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    const memory = createMemoryStore({ now: () => now });
    const runs = memory.store.collection<StoredDoc & { ttl: number }>('imports');
    await runs.create({ id: 'r', pk: 'p', ttl: 60 });
    expect(await runs.read('p', 'r')).toBeDefined();
    now += 61 * 60_000;
    expect(await runs.read('p', 'r')).toBeUndefined();
  });
});
