/**
 * SCIM list: filter, startIndex/count paging, totalResults.
 *
 * Paging is keyset-based: Users are ordered by id (UUIDv7, so creation order), and a page is
 * "the next `count` ids after the last id of the previous page". The service keeps in the store,
 * per integration, filter and next startIndex, the id that ended the page it served (see
 * pageCursors.ts), so the next page costs one point read and one query of `count` items however
 * deep the client is, whichever instance serves it. Without a cursor (it expired, or the client
 * jumps) the start is found by reading ids only, once. Because ids never change, a User present
 * from the first page to the last is returned exactly once even while others are created or deleted.
 */
import type { IdentityDoc } from '../identities/model';
import type { Store } from '../store/store';
import { ScimError } from './errors';
import { FilterError, parseUserFilter, type UserFilter } from './filter';
import { PageCursors } from './pageCursors';
import { byUniqueKey, scimListCount, scimListIds, scimListPage, type ModifiedRange } from '../store/queries/identities';

export const MAX_PAGE_SIZE = 100;
/** Ids a page without a cursor may read to find its start for the price of one request (the rest is charged to the integration's rate limit). */
export const JUMP_IDS_PER_REQUEST = 1000;

export interface ListQuery {
  filter?: UserFilter;
  startIndex: number;
  count: number;
}

export interface ListResult {
  totalResults: number;
  startIndex: number;
  items: IdentityDoc[];
}

function intParam(raw: string | null, fallback: number): number {
  if (raw === null || raw.trim() === '') return fallback;
  if (!/^-?\d{1,12}$/.test(raw.trim())) throw ScimError.invalidValue('startIndex and count must be whole numbers');
  return Number(raw.trim());
}

export function parseListQuery(query: URLSearchParams): ListQuery {
  const rawFilter = query.get('filter');
  let filter: UserFilter | undefined;
  if (rawFilter !== null && rawFilter.trim() !== '') {
    try {
      filter = parseUserFilter(rawFilter);
    } catch (err) {
      if (err instanceof FilterError) throw ScimError.invalidFilter(err.message);
      throw err;
    }
  }
  const startIndex = Math.max(1, intParam(query.get('startIndex'), 1));
  const count = Math.min(MAX_PAGE_SIZE, Math.max(0, intParam(query.get('count'), MAX_PAGE_SIZE)));
  return { filter, startIndex, count };
}

function rangeOf(filter: UserFilter | undefined): ModifiedRange {
  if (!filter || filter.kind !== 'lastModified') return {};
  return { lower: filter.lower, upper: filter.upper };
}

/** What a cursor is kept under inside its integration: the filter and the startIndex it leads to. */
function listKey(range: ModifiedRange, startIndex: number): string {
  const bound = (b: ModifiedRange['lower']) => (b ? [b.inclusive, b.value] : null);
  return JSON.stringify([bound(range.lower), bound(range.upper), startIndex]);
}

export class UserLister {
  private readonly cursors: PageCursors;

  constructor(private readonly store: Store) {
    this.cursors = new PageCursors(store);
  }

  private get items() {
    return this.store.collection<IdentityDoc>('identities');
  }

  /** `jumped` is told how many ids a page without a cursor had to read to find its start. */
  async list(pk: string, q: ListQuery, jumped: (idsRead: number) => void = () => undefined): Promise<ListResult> {
    if (q.filter?.kind === 'eq') return this.listEq(pk, q.filter, q);
    const range = rangeOf(q.filter);
    const totalPage = await this.items.page(scimListCount(pk, range));
    const totalResults = totalPage.items[0] ?? 0;
    if (q.count === 0 || totalResults === 0) return { totalResults, startIndex: q.startIndex, items: [] };

    let after: string | undefined;
    if (q.startIndex > 1) {
      // A kept cursor is followed even past totalResults (Users deleted since the first page shrink it).
      const key = listKey(range, q.startIndex);
      after = await this.cursors.find(pk, key);
      if (after === undefined && q.startIndex <= totalResults) {
        const found = await this.findCursor(pk, range, q.startIndex);
        jumped(found.read);
        after = found.after;
        // Kept, so asking for this page again (a retry, a client that starts here) costs what any page does.
        if (after !== undefined) await this.cursors.save(pk, key, after);
      }
      if (after === undefined) return { totalResults, startIndex: q.startIndex, items: [] };
    }

    // One item more than the page tells whether a next page exists, so a cursor is written only then.
    const page = await this.items.page(scimListPage(pk, range, after, q.count), { maxItemCount: q.count + 1 });
    const items = page.items.slice(0, q.count);
    const last = items[items.length - 1];
    if (last && page.items.length > q.count)
      await this.cursors.save(pk, listKey(range, q.startIndex + q.count), last.id);
    return { totalResults, startIndex: q.startIndex, items };
  }

  private async listEq(pk: string, filter: Extract<UserFilter, { kind: 'eq' }>, q: ListQuery): Promise<ListResult> {
    let found: IdentityDoc | undefined;
    if (filter.attribute === 'id') found = await this.items.read(pk, filter.value);
    else {
      const field = filter.attribute === 'userName' ? 'userNameKey' : 'externalIdKey';
      const value = filter.attribute === 'userName' ? filter.value.toLowerCase() : filter.value;
      const page = await this.items.page(byUniqueKey(pk, field, value), { maxItemCount: 1 });
      found = page.items[0];
    }
    const totalResults = found ? 1 : 0;
    const items = found && q.count > 0 && q.startIndex === 1 ? [found] : [];
    return { totalResults, startIndex: q.startIndex, items };
  }

  /** The id at position startIndex-1, read as ids only (used when no cursor is kept). */
  private async findCursor(
    pk: string,
    range: ModifiedRange,
    startIndex: number,
  ): Promise<{ after: string | undefined; read: number }> {
    const skip = startIndex - 1;
    let seen = 0;
    let continuationToken: string | undefined;
    do {
      const page = await this.items.page(scimListIds(pk, range), { maxItemCount: 1000, continuationToken });
      if (seen + page.items.length >= skip)
        return { after: page.items[skip - seen - 1], read: seen + page.items.length };
      seen += page.items.length;
      continuationToken = page.continuationToken;
    } while (continuationToken);
    return { after: undefined, read: seen };
  }
}
