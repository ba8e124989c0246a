/** lib/store/retryPolicy: the named budgets (which failures, how long to wait, when to give up) and read-modify-write. */
import { StoreError } from '../../../lib/store/errors';
import {
  RETRY,
  readModifyWrite,
  retryDelay,
  retrying,
  type RetryBudget,
  type RetryClock,
  type RetryHistory,
} from '../../../lib/store/retryPolicy';
import type { Collection, StoredDoc, WithEtag } from '../../../lib/store/store';

const throttled = (ms?: number) => new StoreError('throttled', 'Store is throttling requests', ms);
const unavailable = (ms?: number) => new StoreError('unavailable', 'Store temporarily unavailable', ms);
const changed = () => new StoreError('preconditionFailed', 'Item changed since it was read');
const raced = () => new StoreError('conflict', 'Item already exists or violates a unique key');

/** A clock whose waits pass at once, recording when each try started. */
function fakeClock(): RetryClock & { t: number; waits: number[] } {
  const clock = {
    t: 0,
    waits: [] as number[],
    now: () => clock.t,
    sleep: async (ms: number) => {
      clock.waits.push(ms);
      clock.t += ms;
    },
  };
  return clock;
}

/** A call that fails with the given errors in turn, then answers. */
function failing(...errors: unknown[]) {
  let tries = 0;
  const fn = async () => {
    const err = errors[tries++];
    if (err !== undefined) throw err;
    return 'done';
  };
  return { fn, tries: () => tries };
}

async function run(budget: RetryBudget, errors: unknown[], options: Parameters<typeof retrying>[2] = {}) {
  const clock = fakeClock();
  const call = failing(...errors);
  const outcome = await retrying(budget, call.fn, { ...options, clock }).then(
    (v) => ({ ok: true as const, v }),
    (e: unknown) => ({ ok: false as const, e }),
  );
  return { outcome, tries: call.tries(), waits: clock.waits };
}

const none: RetryHistory = { tries: 1, failures: {}, waitedMs: {}, sinceFirstMs: 0 };

describe('retryDelay', () => {
  it('names no wait for a failure the budget does not retry', () => {
    expect(retryDelay(RETRY.background, unavailable(10), none)).toBeUndefined();
    expect(retryDelay(RETRY.background, new Error('bug'), none)).toBeUndefined();
    expect(retryDelay(RETRY.interactive, changed(), none)).toBeUndefined();
    expect(retryDelay(RETRY.changed, throttled(10), none)).toBeUndefined();
  });

  it("honours the store's Retry-After, and the default second when it names none", () => {
    expect(retryDelay(RETRY.background, throttled(250), none)).toBe(250);
    expect(retryDelay(RETRY.background, throttled(), none)).toBe(1000);
    expect(retryDelay(RETRY.unit, unavailable(40), none)).toBe(40);
  });

  it('clamps a long Retry-After in background work, and gives the unit up instead', () => {
    expect(retryDelay(RETRY.background, throttled(60_000), none)).toBe(10_000);
    expect(retryDelay(RETRY.unit, throttled(6_000), none)).toBeUndefined();
  });

  it('grows the wait of a unit that lost a race, and spreads contention at random within a growing bound', () => {
    const concurrent = (err: unknown) => err === 'race';
    const after = (n: number): RetryHistory => ({
      tries: n,
      failures: { other: n - 1 },
      waitedMs: {},
      sinceFirstMs: 0,
    });
    expect(retryDelay(RETRY.unit, 'race', after(1), { alsoRetry: concurrent })).toBe(100);
    expect(retryDelay(RETRY.unit, 'race', after(2), { alsoRetry: concurrent })).toBe(400);
    const lost = (n: number): RetryHistory => ({
      tries: n,
      failures: { changed: n - 1 },
      waitedMs: {},
      sinceFirstMs: 0,
    });
    expect(retryDelay(RETRY.contention, changed(), lost(1), { random: () => 1 })).toBe(2);
    expect(retryDelay(RETRY.contention, changed(), lost(5), { random: () => 1 })).toBe(10);
    expect(retryDelay(RETRY.contention, changed(), lost(50), { random: () => 1 })).toBe(50);
    expect(retryDelay(RETRY.contention, raced(), none, { random: () => 0.5 })).toBe(1);
  });
});

describe('retrying', () => {
  it('background: tries 6 times against throttling, each after the wait the store names', async () => {
    const ok = await run(RETRY.background, [throttled(500), throttled(500)]);
    expect(ok).toMatchObject({ outcome: { ok: true, v: 'done' }, tries: 3, waits: [500, 500] });
    const gaveUp = await run(
      RETRY.background,
      Array.from({ length: 10 }, () => throttled(500)),
    );
    expect(gaveUp.outcome).toMatchObject({ ok: false, e: { failure: 'throttled' } });
    expect(gaveUp.tries).toBe(6);
  });

  it('bulkWrite: tries while a new try can start within 2 minutes of the first, however many tries that is', async () => {
    const many = await run(
      RETRY.bulkWrite,
      Array.from({ length: 50 }, () => throttled(100)),
    );
    expect(many).toMatchObject({ outcome: { ok: true }, tries: 51 });
    const endless = await run(
      RETRY.bulkWrite,
      Array.from({ length: 1000 }, () => throttled(10_000)),
    );
    expect(endless.outcome.ok).toBe(false);
    expect(endless.tries).toBe(13); // tries at 0, 10 s, …, 120 s
  });

  it('interactive: waits out throttling for at most 10 s in all, and at least 1 ms a wait', async () => {
    const within = await run(RETRY.interactive, [throttled(0), throttled(4000), throttled(4000)]);
    expect(within).toMatchObject({ outcome: { ok: true }, waits: [1, 4000, 4000] });
    const beyond = await run(RETRY.interactive, [throttled(4000), throttled(4000), throttled(4000)]);
    expect(beyond).toMatchObject({ outcome: { ok: false, e: { failure: 'throttled' } }, tries: 3 });
  });

  it('unit: 3 tries in all, whatever the mix of throttling, outages and lost races', async () => {
    const race = new Error('lost a race');
    const alsoRetry = (err: unknown) => err === race;
    const ok = await run(RETRY.unit, [unavailable(20), race], { alsoRetry });
    expect(ok).toMatchObject({ outcome: { ok: true }, tries: 3, waits: [20, 100] });
    const gaveUp = await run(RETRY.unit, [throttled(20), unavailable(20), race], { alsoRetry });
    expect(gaveUp).toMatchObject({ outcome: { ok: false, e: race }, tries: 3 });
  });

  it('changed: 4 tries without waiting; when they run out, the error the caller names', async () => {
    const ok = await run(RETRY.changed, [changed(), raced(), changed()]);
    expect(ok).toMatchObject({ outcome: { ok: true }, tries: 4, waits: [] });
    const busy = new Error('busy');
    const gaveUp = await run(RETRY.changed, [changed(), changed(), changed(), changed()], { exhausted: () => busy });
    expect(gaveUp).toMatchObject({ outcome: { ok: false, e: busy }, tries: 4 });
  });

  it('contention: 60 tries for a document many writers change at once', async () => {
    const ok = await run(
      RETRY.contention,
      Array.from({ length: 59 }, () => changed()),
    );
    expect(ok).toMatchObject({ outcome: { ok: true }, tries: 60 });
    const gaveUp = await run(
      RETRY.contention,
      Array.from({ length: 60 }, () => changed()),
    );
    expect(gaveUp.tries).toBe(60);
    expect(Math.max(...gaveUp.waits)).toBeLessThanOrEqual(50);
  });

  it('passes any other failure on at once, and never retries one the caller did not name', async () => {
    const bug = new Error('bug');
    expect(await run(RETRY.background, [bug])).toMatchObject({ outcome: { ok: false, e: bug }, tries: 1 });
    expect(await run(RETRY.contention, [throttled(1)])).toMatchObject({ outcome: { ok: false }, tries: 1 });
  });

  it('with retryResult, an answer fails a try too; when the budget runs out the last answer is returned', async () => {
    const clock = fakeClock();
    let tries = 0;
    const answer = await retrying(
      RETRY.interactive,
      async () => {
        tries++;
        return [throttled(4000), throttled(4000)];
      },
      { clock, retryResult: (outcomes) => outcomes[0] },
    );
    expect(tries).toBe(3);
    expect(answer).toHaveLength(2);
    expect(clock.waits).toEqual([4000, 4000]);
  });
});

interface Doc extends StoredDoc {
  n: number;
}

/** A collection of one partition held in memory, with entity tags as the store keeps them. */
function memoryCollection(interfere: (op: string, docs: Map<string, WithEtag<Doc>>) => void = () => undefined) {
  const docs = new Map<string, WithEtag<Doc>>();
  let version = 0;
  const stored = (doc: Doc) => ({ ...doc, _etag: `e${++version}` });
  const col = {
    writes: 0,
    async read(_pk: string, id: string) {
      interfere('read', docs);
      const d = docs.get(id);
      return d ? { ...d } : undefined;
    },
    async create(doc: Doc) {
      interfere('create', docs);
      col.writes++;
      if (docs.has(doc.id)) throw raced();
      docs.set(doc.id, stored(doc));
      return { ...docs.get(doc.id)! };
    },
    async replace(doc: Doc, ifMatch?: string) {
      interfere('replace', docs);
      col.writes++;
      const current = docs.get(doc.id);
      if (!current) throw new StoreError('notFound', 'Item not found');
      if (ifMatch && current._etag !== ifMatch) throw changed();
      docs.set(doc.id, stored(doc));
      return { ...docs.get(doc.id)! };
    },
  };
  return { col, docs, collection: col as unknown as Collection<Doc> };
}

describe('readModifyWrite', () => {
  const add = (k: number) => (current: WithEtag<Doc> | undefined) => ({ id: 'd', pk: 'p', n: (current?.n ?? 0) + k });

  it('creates the document when there is none, and changes it with its entity tag after', async () => {
    const { docs, collection } = memoryCollection();
    expect(await readModifyWrite(collection, 'p', 'd', add(1), RETRY.changed)).toMatchObject({ n: 1 });
    expect(await readModifyWrite(collection, 'p', 'd', add(2), RETRY.changed)).toMatchObject({ n: 3 });
    expect(docs.get('d')?.n).toBe(3);
  });

  it('another writer first: reads again and applies the change to what that writer stored', async () => {
    let interfered = 0;
    const { docs, collection } = memoryCollection((op, all) => {
      // Between this read and its write, another writer adds 10 (twice).
      if (op === 'replace' && interfered++ < 2)
        all.set('d', { ...all.get('d')!, n: all.get('d')!.n + 10, _etag: `x${interfered}` });
    });
    docs.set('d', { id: 'd', pk: 'p', n: 1, _etag: 'e0' });
    expect(await readModifyWrite(collection, 'p', 'd', add(1), RETRY.changed)).toMatchObject({ n: 22 });
  });

  it('a create that lost the race is decided again against the document the other writer created', async () => {
    let raceOnce = true;
    const { collection } = memoryCollection((op, all) => {
      if (op === 'create' && raceOnce) {
        raceOnce = false;
        all.set('d', { id: 'd', pk: 'p', n: 100, _etag: 'other' });
      }
    });
    expect(await readModifyWrite(collection, 'p', 'd', add(1), RETRY.changed)).toMatchObject({ n: 101 });
  });

  it('writes nothing when the change says so, and gives up with the error named once the budget is spent', async () => {
    const { col, docs, collection } = memoryCollection((op, all) => {
      if (op === 'replace') all.set('d', { ...all.get('d')!, _etag: `moved${Math.random()}` });
    });
    docs.set('d', { id: 'd', pk: 'p', n: 1, _etag: 'e0' });
    expect(await readModifyWrite(collection, 'p', 'd', () => undefined, RETRY.changed)).toMatchObject({ n: 1 });
    expect(col.writes).toBe(0);
    const busy = new Error('busy');
    await expect(readModifyWrite(collection, 'p', 'd', add(1), RETRY.changed, { exhausted: () => busy })).rejects.toBe(
      busy,
    );
    expect(col.writes).toBe(4);
  });

  it('retries each read and write under its own budget when asked (throttling inside a read-modify-write)', async () => {
    let throttles = 2;
    const { collection } = memoryCollection((op) => {
      if (op === 'read' && throttles-- > 0) throw throttled(1);
    });
    expect(
      await readModifyWrite(collection, 'p', 'd', add(1), RETRY.changed, { each: RETRY.background }),
    ).toMatchObject({ n: 1 });
  });
});
