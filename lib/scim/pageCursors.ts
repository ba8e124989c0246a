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
import { isStoreError } from '../store/errors';
import { RETRY, readModifyWrite } from '../store/retryPolicy';

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

  /**
   * Keeps `after` as the cursor for the key, unless a live cursor there names an earlier id: two
   * readers of one list share its cursors (the client sends only startIndex), and after Users of the
   * first pages are deleted the later reader's page ends further on. Keeping the earlier id means the
   * earlier reader's next page skips nothing; the later reader may get a User it already has (it never
   * misses one). The earlier cursor is not renewed by the later reader, so it lives 10 minutes from the
   * page of the reader that wrote it.
   */
  async save(scope: string, listKey: string, after: string): Promise<void> {
    const doc: PageCursorDoc = {
      id: cursorId(scope, listKey),
      pk: pageCursorPartition(scope),
      scope,
      after,
      ttl: PAGE_CURSOR_TTL_SECONDS,
    };
    try {
      await this.docs.create(doc);
      return;
    } catch (err) {
      if (!isStoreError(err, 'conflict')) throw err;
    }
    // Another reader wrote the key meanwhile: decide again against what it wrote.
    await readModifyWrite(
      this.docs,
      doc.pk,
      doc.id,
      (kept) =>
        kept && kept.scope === scope && typeof kept.after === 'string' && kept.after < after ? undefined : doc,
      RETRY.changed,
    );
  }
}
