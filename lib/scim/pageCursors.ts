/**
 * Where the next page of a SCIM list starts, kept in the store so every instance sees it: one small
 * document per (integration, filter, next startIndex) holding the id that ended the page before, for
 * 10 minutes after the page that wrote it. The documents live in the `links` container under a
 * partition of their own per integration (`paging|<identities partition>`), with a `ttl`, so Cosmos
 * DB deletes them. The client never sees a cursor: it sends startIndex, and the cursor is looked up
 * from its own integration's partition, so another integration's cursor is never even read.
 */
import { createHash } from 'node:crypto';
import type { Store, StoredDoc } from '../store/store';

/** Seconds a page cursor lives after the page that wrote it. */
export const PAGE_CURSOR_TTL_SECONDS = 600;

interface PageCursorDoc extends StoredDoc {
  /** The identities partition (tenant and integration) whose list the cursor belongs to. */
  scope: string;
  /** The id that ended the page before this cursor's startIndex. */
  after: string;
  ttl: number;
}

export function pageCursorPartition(scope: string): string {
  return `paging|${scope}`;
}

/** Document id: a digest, so filter values never appear in an id and ids stay within Cosmos DB's rules. */
function cursorId(scope: string, listKey: string): string {
  return createHash('sha256').update(scope).update('\n').update(listKey).digest('hex');
}

export class PageCursors {
  constructor(private readonly store: Store) {}

  private get docs() {
    return this.store.collection<PageCursorDoc>('links');
  }

  /** The id to continue after, or undefined when no cursor of this integration is alive for the key. */
  async find(scope: string, listKey: string): Promise<string | undefined> {
    const doc = await this.docs.read(pageCursorPartition(scope), cursorId(scope, listKey));
    return doc && doc.scope === scope && typeof doc.after === 'string' ? doc.after : undefined;
  }

  async save(scope: string, listKey: string, after: string): Promise<void> {
    await this.docs.upsert({ id: cursorId(scope, listKey), pk: pageCursorPartition(scope), scope, after, ttl: PAGE_CURSOR_TTL_SECONDS });
  }
}
