import {
  decodeCursor,
  encodeCursor,
  readActivity,
  type ActivityEntry,
  type StreamEntries,
} from '../../../lib/activity/entries';
import { historyEntries } from '../../../lib/activity/historyActivity';
import { appendEntry } from '../../../lib/identities/history';
import type { IdentityDoc, IdentityHistoryEntry } from '../../../lib/identities/model';

const T = (s: number) => new Date(Date.parse('2026-03-01T08:00:00.000Z') + s * 1000).toISOString();
const ID = '0190f5a2-1111-7000-8000-000000000001';

describe('historyEntries', () => {
  it('makes one SUCCEEDED entry per change, newest first, with a key that stays as changes are added and dropped', () => {
    const identity = {
      id: ID,
      externalId: 'E1',
      lastModified: T(2),
      history: [
        {
          at: T(2),
          actor: { kind: 'integration' as const, id: 'i' },
          operation: 'PATCH',
          changedAttributes: ['name.givenName'],
        },
        {
          at: T(1),
          actor: { kind: 'integration' as const, id: 'i' },
          operation: 'CREATE',
          changedAttributes: ['personalNumbers'],
        },
      ],
      historyOmitted: 3,
    };
    const entries = historyEntries(identity);
    expect(entries.map((e) => [e.at, e.operation, e.outcome, e.externalId, e.identityId, e.changedAttributes])).toEqual(
      [
        [T(2), 'PATCH', 'succeeded', 'E1', ID, ['name.givenName']],
        [T(1), 'CREATE', 'succeeded', 'E1', ID, ['personalNumbers']],
      ],
    );
    expect(entries[0]!.key).toBe(`${T(2)}|${ID}.5`);
    expect(entries[1]!.key).toBe(`${T(1)}|${ID}.4`);
    // Keys are cursors the service accepts.
    expect(decodeCursor(encodeCursor(entries[1]!.key))).toBe(entries[1]!.key);
    // One more change, one more dropped: the older entries keep their keys.
    const later = historyEntries({
      ...identity,
      history: [{ ...identity.history[0]!, at: T(3) }, ...identity.history.slice(0, 1)],
      historyOmitted: 4,
    });
    expect(later[1]!.key).toBe(entries[0]!.key);
  });

  it('reads the compact stored form as the readable one', () => {
    let stored: Pick<IdentityDoc, 'history' | 'historyOmitted'> = { historyOmitted: 3 };
    const changes: IdentityHistoryEntry[] = [
      {
        at: T(1),
        actor: { kind: 'integration', id: 'i' },
        operation: 'CREATE',
        changedAttributes: ['personalNumbers'],
      },
      { at: T(2), actor: { kind: 'integration', id: 'i' }, operation: 'PATCH', changedAttributes: ['name.givenName'] },
    ];
    for (const change of changes) stored = appendEntry(stored, change);
    expect(Array.isArray(stored.history)).toBe(false);
    const compact = historyEntries({ id: ID, externalId: 'E1', lastModified: T(2), ...stored });
    const readable = historyEntries({
      id: ID,
      externalId: 'E1',
      lastModified: T(2),
      history: [...changes].reverse(),
      historyOmitted: 3,
    });
    expect(compact).toEqual(readable);
    expect(compact.map((e) => [e.key, e.operation, e.changedAttributes])).toEqual([
      [`${T(2)}|${ID}.5`, 'PATCH', ['name.givenName']],
      [`${T(1)}|${ID}.4`, 'CREATE', ['personalNumbers']],
    ]);
  });

  it('has none for an identity without history', () => {
    expect(historyEntries({ id: ID, externalId: 'E1', lastModified: T(0) })).toEqual([]);
  });
});

describe('readActivity with a stream that stopped reading early', () => {
  const entry = (s: number, tail: string): ActivityEntry => ({
    key: `${T(s)}|${tail}`,
    at: T(s),
    operation: 'PATCH',
    outcome: 'succeeded',
    httpStatus: null,
    scimType: null,
    code: null,
    detail: null,
    externalId: null,
    identityId: null,
    changedAttributes: [],
    correlationId: null,
    action: 'update',
    runId: null,
    counts: null,
    durationMs: null,
    actor: null,
  });

  it('ends the page at the key the stream knows down to, and says more follows', async () => {
    const partial: StreamEntries = Object.assign([entry(9, 'a'), entry(8, 'b')], { completeAbove: `${T(7)}|~` });
    const other = async () => [entry(10, 'r'), entry(5, 'r2')];
    const page = await readActivity([async () => partial, other], { limit: 10 });
    expect(page.entries.map((e) => e.key)).toEqual([entry(10, 'r').key, entry(9, 'a').key, entry(8, 'b').key]);
    expect(page.hasMore).toBe(true);
  });

  it('refuses a page that would hold nothing, naming the cursor', async () => {
    const nothing: StreamEntries = Object.assign([], { completeAbove: `${T(7)}|~` });
    await expect(readActivity([async () => nothing], { limit: 10 })).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
      problems: [expect.objectContaining({ field: 'after' })],
    });
  });
});
