/**
 * A source's activity: what happened to it, newest first, as entries of one shape whatever recorded them
 * (refused SCIM requests, import and association runs, the identities' own history). Each kind comes
 * from its own stream, newest first; `readActivity` merges the streams into one page.
 */
import { badInput } from '../util/domainError';

export type ActivityOutcome = 'succeeded' | 'refused' | 'failed';

/** What an entry did, in the words of Entra's provisioning logs (lib/activity/actions.ts maps operations to them). */
export type ActivityAction = 'create' | 'update' | 'delete' | 'link' | 'unlink' | 'other';

/** Who made a change: an integration, an import or association run, an administrator, the background work. */
export interface ActivityActor {
  kind: 'integration' | 'importRun' | 'administrator' | 'background';
  id: string;
  /** The administrator's name as the token said at the time of the change (the others are named on reading). */
  name?: string;
}

/** One count of a run's summary: `created`, `updated`, … `associated`, `conflicting` …. */
export interface RunCount {
  name: string;
  value: number;
}

export interface ActivityEntry {
  /**
   * Orders entries across streams: `<ISO time>|<tail>`, the tail unique within its stream. Newest first is
   * descending key order; the cursor of a page is the key of its last entry.
   */
  key: string;
  at: string;
  /** What was asked: `POST /Users`, `PATCH /Users/{id}`, `import`, … (never a URL with values). */
  operation: string;
  outcome: ActivityOutcome;
  httpStatus: number | null;
  scimType: string | null;
  /** The service's error code (runs) or the kind of a summary entry. */
  code: string | null;
  /** The service's own words; never a value a caller sent. */
  detail: string | null;
  externalId: string | null;
  identityId: string | null;
  /** Names of the attributes a change touched (identity history), never their values. */
  changedAttributes: string[] | null;
  correlationId: string | null;
  action: ActivityAction;
  /** The run an entry is (a run's summary) or was made by (one of its changes). */
  runId: string | null;
  /** A run's summary: its counts (created, updated, deleted, unchanged; associated, conflicting, …). */
  counts: RunCount[] | null;
  /** A run's summary: from its start to its end. */
  durationMs: number | null;
  /** Who made a change (identity history). */
  actor: ActivityActor | null;
}

export interface ActivityQuery {
  /** Only entries older than this key (the cursor of the page before, or the filter's `until`). */
  before?: string;
  /** Only entries at or after this time (ISO 8601, as toISOString writes it). */
  since?: string;
  /** Only entries of this externalId. */
  externalId?: string;
  /** Only entries of this action. */
  action?: ActivityAction;
  /** At most this many entries. */
  limit: number;
}

/**
 * A stream's entries. A stream that stopped reading before it knew all of them (it bounds its reads) says
 * down to which key they are complete: `completeAbove`; an entry of it at or below that key may be missing.
 */
export type StreamEntries<E extends ActivityEntry = ActivityEntry> = E[] & { completeAbove?: string };

/** One kind of a source's entries, newest first, at most `limit` of them. */
export type ActivityStream<E extends ActivityEntry = ActivityEntry> = (
  query: ActivityQuery,
) => Promise<StreamEntries<E>>;

const KEY = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z\|[A-Za-z0-9._-]{1,80}$/;

/** The key of an entry made at `at` (epoch ms) with a tail unique in its stream. */
export function entryKey(at: number, tail: string): string {
  return `${new Date(at).toISOString()}|${tail}`;
}

/** The time a key begins with (epoch ms). */
export function keyTime(key: string): number {
  return Date.parse(key.slice(0, 24));
}

/** The opaque cursor of a key, and back (undefined when the text is not a cursor this service made). */
export function encodeCursor(key: string): string {
  return Buffer.from(key, 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string): string | undefined {
  if (cursor.length > 200 || !/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  const key = Buffer.from(cursor, 'base64url').toString('utf8');
  return KEY.test(key) && !Number.isNaN(keyTime(key)) ? key : undefined;
}

/** Newest first: the greater key first. */
const newestFirst = (a: ActivityEntry, b: ActivityEntry): number => (a.key < b.key ? 1 : a.key > b.key ? -1 : 0);

/** Merges lists that are each newest first into one newest-first list of at most `limit` entries. */
export function mergeNewestFirst<E extends ActivityEntry>(lists: E[][], limit: number): E[] {
  return lists.flat().sort(newestFirst).slice(0, limit);
}

/**
 * One page of a source's activity from its streams: each is asked for one entry more than the page, so
 * whether another page follows is known without a second round. When a stream knows its entries only down
 * to a key, the page ends there (the next page goes on from it); a page that would hold nothing then is refused.
 */
export async function readActivity<E extends ActivityEntry>(
  streams: Array<ActivityStream<E>>,
  query: ActivityQuery,
): Promise<{ entries: E[]; hasMore: boolean }> {
  const lists = await Promise.all(streams.map((stream) => stream({ ...query, limit: query.limit + 1 })));
  const floor = lists.reduce<string | undefined>(
    (f, l) => (l.completeAbove !== undefined && (f === undefined || l.completeAbove > f) ? l.completeAbove : f),
    undefined,
  );
  const merged = mergeNewestFirst(lists, query.limit + 1).filter((e) => floor === undefined || e.key > floor);
  if (floor !== undefined && merged.length === 0)
    throw badInput(
      [
        {
          field: 'after',
          problem:
            'is too far back to be read at once; narrow the activity (filter.externalId, filter.from, filter.until)',
        },
      ],
      'The page is too far back',
    );
  return { entries: merged.slice(0, query.limit), hasMore: floor !== undefined || merged.length > query.limit };
}

const SINCE = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))?$/;

/** The key below which entries are older than `until` (an ISO time as toISOString writes it). */
export function untilKey(until: string): string {
  return `${until}|`;
}

/** The earlier (smaller) of two keys that may be absent. */
export function lowerKey(a: string | undefined, b: string | undefined): string | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return a < b ? a : b;
}

/**
 * `stream` with a filter it cannot apply in its query (the action): it is asked for more than the page
 * (`overRead` at least), and when it had more than it was asked for, the entries are complete only down to
 * the last one it read (readActivity ends the page there), so a rare action never reads without bound.
 */
export function filteredStream(
  stream: ActivityStream,
  keep: (e: ActivityEntry) => boolean,
  overRead = 200,
): ActivityStream {
  return async (query) => {
    const asked = Math.max(query.limit, overRead);
    const read = await stream({ ...query, limit: asked });
    const kept: StreamEntries = read.filter(keep);
    const last = read[read.length - 1];
    let completeAbove = read.completeAbove;
    if (read.length >= asked && last !== undefined && kept.length < query.limit)
      completeAbove = completeAbove === undefined || last.key > completeAbove ? last.key : completeAbove;
    return completeAbove === undefined
      ? kept.slice(0, query.limit)
      : Object.assign(
          kept.slice(0, query.limit).filter((e) => e.key > (completeAbove as string)),
          { completeAbove },
        );
  };
}

/** `since` as entries compare it: a date (midnight UTC) or a time with its offset; undefined when it is neither. */
export function parseSince(text: string): string | undefined {
  if (!SINCE.test(text)) return undefined;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}
