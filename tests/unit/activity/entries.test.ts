import {
  decodeCursor,
  encodeCursor,
  entryKey,
  mergeNewestFirst,
  parseSince,
  readActivity,
  type ActivityEntry,
  type ActivityQuery,
  type ActivityStream,
} from '../../../lib/activity/entries';

const T0 = Date.parse('2026-03-01T08:00:00.000Z');

function entry(at: number, tail: string): ActivityEntry {
  return {
    key: entryKey(at, tail),
    at: new Date(at).toISOString(),
    operation: 'POST /Users',
    outcome: 'refused',
    httpStatus: 400,
    scimType: 'invalidValue',
    code: null,
    detail: null,
    externalId: null,
    identityId: null,
    changedAttributes: null,
    correlationId: null,
    action: 'create',
    runId: null,
    counts: null,
    durationMs: null,
    actor: null,
  };
}

/** A stream over a fixed newest-first list, answering queries as the store does. */
function listStream(items: ActivityEntry[], asked: ActivityQuery[] = []): ActivityStream {
  return async (q) => {
    asked.push(q);
    return items
      .filter((e) => (q.before === undefined || e.key < q.before) && (q.since === undefined || e.key >= q.since))
      .slice(0, q.limit);
  };
}

describe('activity entries', () => {
  it('merges two newest-first streams into one, newest first', () => {
    const a = [entry(T0 + 5000, 'a'), entry(T0 + 1000, 'a')];
    const b = [entry(T0 + 3000, 'b'), entry(T0, 'b')];
    expect(mergeNewestFirst([a, b], 3).map((e) => e.key)).toEqual([a[0]!.key, b[0]!.key, a[1]!.key]);
  });

  it('pages through merged streams with the cursor of the last entry, each entry once', async () => {
    const a = [5, 4, 1].map((s) => entry(T0 + s * 1000, 'a'));
    const b = [3, 2].map((s) => entry(T0 + s * 1000, 'b'));
    const asked: ActivityQuery[] = [];
    const streams = [listStream(a, asked), listStream(b)];
    const seen: string[] = [];
    let before: string | undefined;
    let pages = 0;
    for (;;) {
      const page = await readActivity(streams, { limit: 2, ...(before ? { before } : {}) });
      seen.push(...page.entries.map((e) => e.at));
      pages++;
      if (!page.hasMore) break;
      before = decodeCursor(encodeCursor(page.entries[page.entries.length - 1]!.key));
    }
    expect(pages).toBe(3);
    expect(seen).toEqual([5, 4, 3, 2, 1].map((s) => new Date(T0 + s * 1000).toISOString()));
    // Each stream is asked for one more than the page: whether another page follows is known at once.
    expect(asked[0]!.limit).toBe(3);
  });

  it('refuses a cursor it did not make', () => {
    expect(decodeCursor(encodeCursor(entryKey(T0, 'abc123')))).toBe(`2026-03-01T08:00:00.000Z|abc123`);
    for (const bad of ['', 'not a cursor', Buffer.from('0101901234').toString('base64url'), 'x'.repeat(300)])
      expect(decodeCursor(bad)).toBeUndefined();
  });

  it('reads since as a date or a time with its offset', () => {
    expect(parseSince('2026-03-01')).toBe('2026-03-01T00:00:00.000Z');
    expect(parseSince('2026-03-01T10:00:00+02:00')).toBe('2026-03-01T08:00:00.000Z');
    expect(parseSince('2026-03-01T08:00Z')).toBe('2026-03-01T08:00:00.000Z');
    for (const bad of ['yesterday', '2026-03-01T08:00:00', '2026-13-45', '0101901234'])
      expect(parseSince(bad)).toBeUndefined();
  });
});
