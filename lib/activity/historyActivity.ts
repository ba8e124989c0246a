/**
 * The SUCCEEDED entries of a source's activity: the changes its identities keep in their history
 * (lib/identities/history.ts), flattened newest first. A change made by an import or association run is not
 * one of them: the run is one entry (runActivity.ts) and its changes are reached from it (`runChanges`), so
 * a run of 300,000 identities does not bury the source's other changes.
 *
 * The source's identities are read newest first by `activityAt` (the time of an identity's newest change not
 * made by a run; identities only runs changed do not have it, so they are not read at all) or, for sources no
 * run writes (SCIM integrations, Manual), by `lastModified`. An identity's changes are all at or before that
 * time, so the read stops as soon as the page's oldest entry is newer than the identity read last. A page far
 * back (behind many changed identities) would read many identities: at most MAX_SCANNED_IDENTITIES are read
 * per page; entries below the last one read are then left to the next page. Each read is a keyset page
 * (TOP, at or below the last time read) that the store serves from the field's index: O(page).
 */
import type { Store } from '../store/store';
import type { IdentityDoc } from '../identities/model';
import { changedIdentities, runChangedIdentities, type ActivityOrder } from '../store/queries/identities';
import { readHistory } from '../identities/history';
import { actionOf } from './actions';
import { entryKey, type ActivityEntry, type ActivityQuery, type ActivityStream, type StreamEntries } from './entries';

/** Identities read for one page at most. */
export const MAX_SCANNED_IDENTITIES = 1000;
/** Identities per query page. */
const SCAN_PAGE = 100;

type ChangedIdentity = Pick<
  IdentityDoc,
  'id' | 'externalId' | 'lastModified' | 'activityAt' | 'history' | 'historyOmitted'
>;

const TAIL = /^[A-Za-z0-9._-]{1,60}$/;

/**
 * The history of one identity as entries. Each key's tail is the identity's id and the entry's ordinal
 * among all its changes (dropped ones counted), which stays the same as newer changes are added.
 */
export function historyEntries(identity: ChangedIdentity): ActivityEntry[] {
  if (!TAIL.test(identity.id)) return [];
  const history = readHistory(identity);
  const total = (identity.historyOmitted ?? 0) + history.length;
  return history.map((change, i) => ({
    key: entryKey(Date.parse(change.at), `${identity.id}.${total - i}`),
    at: change.at,
    operation: change.operation,
    outcome: 'succeeded',
    httpStatus: null,
    scimType: null,
    code: null,
    detail: null,
    externalId: identity.externalId,
    identityId: identity.id,
    changedAttributes: change.changedAttributes,
    correlationId: null,
    action: actionOf(change.operation),
    runId: change.actor.kind === 'importRun' ? change.actor.id : null,
    counts: null,
    durationMs: null,
    actor: { ...change.actor },
  }));
}

const newestFirst = (a: ActivityEntry, b: ActivityEntry): number => (a.key < b.key ? 1 : a.key > b.key ? -1 : 0);

function wanted(query: ActivityQuery) {
  return (e: ActivityEntry): boolean =>
    // One identity's changes (an externalId) include its runs' changes: they bury nothing there.
    (e.actor?.kind !== 'importRun' || query.externalId !== undefined) &&
    (query.before === undefined || e.key < query.before) &&
    (query.since === undefined || e.at >= query.since) &&
    (query.action === undefined || e.action === query.action);
}

/** The changes of a source's identities (partition `pk`) not made by runs, as activity entries, newest first. */
export function historyStream(
  store: Store,
  pk: string,
  order: ActivityOrder,
  maxScanned = MAX_SCANNED_IDENTITIES,
): ActivityStream {
  return async (query): Promise<StreamEntries> => {
    const keep = wanted(query);
    const col = store.collection<IdentityDoc>('identities');
    let found: ActivityEntry[] = [];
    let scanned = 0;
    let upTo: string | undefined;
    let lastRead: string | undefined;
    const seen = new Set<string>();
    for (;;) {
      const top = Math.min(SCAN_PAGE, maxScanned - scanned);
      const items = await col.all(
        changedIdentities<ChangedIdentity>(
          pk,
          {
            // An identity only runs changed has no activityAt: one externalId is read by its key alone.
            order: query.externalId !== undefined ? 'lastModified' : order,
            ...(query.since !== undefined ? { since: query.since } : {}),
            ...(upTo !== undefined ? { upTo } : {}),
            ...(query.externalId !== undefined ? { externalId: query.externalId } : {}),
          },
          top,
        ),
        { maxItemCount: top },
      );
      let fresh = 0;
      for (const identity of items) {
        if (seen.has(identity.id)) continue;
        seen.add(identity.id);
        fresh++;
        scanned++;
        lastRead = (query.externalId === undefined ? identity[order] : undefined) ?? identity.lastModified;
        found.push(...historyEntries(identity).filter(keep));
      }
      found = found.sort(newestFirst).slice(0, query.limit);
      const oldest = found[query.limit - 1];
      // Complete: no identity not read yet holds a change newer than the page's oldest entry.
      if (oldest !== undefined && lastRead !== undefined && oldest.at > lastRead) return found;
      // Every identity read (or the one of an externalId).
      if (items.length < top || query.externalId !== undefined) return found;
      // As far as allowed, or no progress (more identities changed in one millisecond than a query page).
      if (fresh === 0 || scanned >= maxScanned) break;
      upTo = lastRead;
    }
    if (lastRead === undefined) return found;
    // Read as far as allowed: only entries newer than the last identity read are known to be complete.
    const completeAbove = `${lastRead}|~`;
    return Object.assign(
      found.filter((e) => e.key > completeAbove),
      { completeAbove },
    );
  };
}

/** The page of a run's changes after an identity (`afterId`), and the identity the next page goes on after. */
export interface RunChangesPage {
  entries: ActivityEntry[];
  /** The last identity read when more may follow. */
  nextAfterId: string | undefined;
}

/** Identities read for one page of a run's changes at most (a rare action is then continued on the next page). */
const RUN_SCAN = 200;

/**
 * The changes a run made (its drill-in), in the order of the identities' ids: the identities it changed last
 * (`lastRunId`; an identity a later run changed again is that run's), each with its changes by this run.
 * An identity the run deleted is gone and is not listed (the run's counts say how many).
 */
export async function runChanges(
  store: Store,
  pk: string,
  runId: string,
  page: { afterId?: string; limit: number; action?: ActivityQuery['action']; externalId?: string },
): Promise<RunChangesPage> {
  const entries: ActivityEntry[] = [];
  let afterId = page.afterId;
  let scanned = 0;
  while (entries.length < page.limit && scanned < RUN_SCAN) {
    const top = Math.min(page.limit - entries.length, RUN_SCAN - scanned) + 1;
    const items = await store
      .collection<IdentityDoc>('identities')
      .all(runChangedIdentities<ChangedIdentity>(pk, runId, afterId, top), { maxItemCount: top });
    const more = items.length === top;
    for (const identity of items.slice(0, more ? top - 1 : top)) {
      scanned++;
      afterId = identity.id;
      if (page.externalId !== undefined && identity.externalId !== page.externalId) continue;
      entries.push(
        ...historyEntries(identity).filter(
          (e) => e.runId === runId && (page.action === undefined || e.action === page.action),
        ),
      );
    }
    if (!more) return { entries, nextAfterId: undefined };
  }
  return { entries, nextAfterId: afterId };
}
