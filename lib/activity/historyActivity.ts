/**
 * The SUCCEEDED entries of a source's activity: the changes its identities keep in their history
 * (lib/identities/history.ts), flattened newest first. An identity's changes are all at or before its
 * lastModified, so reading the source's identities by lastModified, newest first, can stop as soon as the
 * page's oldest entry is newer than the identity read last: no identity further down holds a newer change.
 * A page far back (behind many changed identities) would read many identities: at most
 * MAX_SCANNED_IDENTITIES are read per page; entries below the last one read are then left to the next page.
 */
import type { Store } from '../store/store';
import type { IdentityDoc } from '../identities/model';
import { changedIdentities } from '../store/queries/identities';
import { readHistory } from '../identities/history';
import { entryKey, type ActivityEntry, type ActivityQuery, type ActivityStream, type StreamEntries } from './entries';

/** Identities read for one page at most. */
export const MAX_SCANNED_IDENTITIES = 1000;
/** Identities per query page. */
const SCAN_PAGE = 100;

type ChangedIdentity = Pick<IdentityDoc, 'id' | 'externalId' | 'lastModified' | 'history' | 'historyOmitted'>;

/** One page of the source's identities by their last change, newest first (the named query changedIdentities). */
export function changedIdentitiesPage(
  store: Store,
  pk: string,
  filter: { since?: string; externalId?: string },
  page: { maxItemCount: number; continuationToken?: string },
) {
  return store.collection<IdentityDoc>('identities').page(changedIdentities<ChangedIdentity>(pk, filter), page);
}

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
  }));
}

const newestFirst = (a: ActivityEntry, b: ActivityEntry): number => (a.key < b.key ? 1 : a.key > b.key ? -1 : 0);

function wanted(query: ActivityQuery) {
  return (e: ActivityEntry): boolean =>
    (query.before === undefined || e.key < query.before) && (query.since === undefined || e.at >= query.since);
}

/** The changes of a source's identities (partition `pk`) as activity entries, newest first. */
export function historyStream(store: Store, pk: string, maxScanned = MAX_SCANNED_IDENTITIES): ActivityStream {
  return async (query): Promise<StreamEntries> => {
    const keep = wanted(query);
    let found: ActivityEntry[] = [];
    let continuationToken: string | undefined;
    let scanned = 0;
    let lastRead: string | undefined;
    do {
      const page = await changedIdentitiesPage(
        store,
        pk,
        {
          ...(query.since !== undefined ? { since: query.since } : {}),
          ...(query.externalId !== undefined ? { externalId: query.externalId } : {}),
        },
        {
          maxItemCount: Math.min(SCAN_PAGE, maxScanned - scanned),
          ...(continuationToken ? { continuationToken } : {}),
        },
      );
      for (const identity of page.items) {
        scanned++;
        lastRead = identity.lastModified;
        found.push(...historyEntries(identity).filter(keep));
      }
      found = found.sort(newestFirst).slice(0, query.limit);
      continuationToken = page.continuationToken;
      const oldest = found[query.limit - 1];
      // Complete: no identity not read yet holds a change newer than the page's oldest entry.
      if (oldest !== undefined && lastRead !== undefined && oldest.at > lastRead) return found;
    } while (continuationToken && scanned < maxScanned);
    if (!continuationToken || lastRead === undefined) return found;
    // Read as far as allowed: only entries newer than the last identity read are known to be complete.
    const completeAbove = `${lastRead}|~`;
    return Object.assign(
      found.filter((e) => e.key > completeAbove),
      { completeAbove },
    );
  };
}
