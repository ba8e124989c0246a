import type { Store } from '../store/store';
import { isStoreError } from '../store/errors';
import type { IdentityDoc } from './model';

export interface RetentionResult {
  examined: number;
  purged: number;
  skipped: number;
  pages: number;
}

const PAGE_SIZE = 100;

/**
 * Deletes personal numbers and document references of identities inactive for at least
 * `inactiveDays` (all sources). Works in bounded pages, is idempotent, and re-checks each
 * identity before writing, so a reactivation that races with it wins.
 */
export async function purgeExpiredSensitiveData(store: Store, inactiveDays: number, now: Date = new Date(), maxPages = 1000): Promise<RetentionResult> {
  const cutoff = new Date(now.getTime() - inactiveDays * 86_400_000).toISOString();
  const identities = store.collection<IdentityDoc>('identities');
  const result: RetentionResult = { examined: 0, purged: 0, skipped: 0, pages: 0 };
  let continuationToken: string | undefined;
  do {
    const page = await identities.queryPage<{ id: string; pk: string }>(
      {
        query: 'SELECT c.id, c.pk FROM c WHERE c.hasSensitive = true AND c.active = false AND c.inactiveSince <= @cutoff',
        parameters: [{ name: '@cutoff', value: cutoff }],
      },
      { maxItemCount: PAGE_SIZE, continuationToken },
    );
    result.pages++;
    for (const ref of page.items) {
      result.examined++;
      if (await purgeOne(store, ref.pk, ref.id, cutoff)) result.purged++;
      else result.skipped++;
    }
    continuationToken = page.continuationToken;
  } while (continuationToken && result.pages < maxPages);
  return result;
}

async function purgeOne(store: Store, pk: string, id: string, cutoff: string): Promise<boolean> {
  const identities = store.collection<IdentityDoc>('identities');
  for (let attempt = 0; attempt < 5; attempt++) {
    const doc = await identities.read(pk, id);
    if (!doc || doc.active || !doc.inactiveSince || doc.inactiveSince > cutoff || !doc.hasSensitive) return false;
    const { _etag, ...rest } = doc;
    try {
      await identities.replace(
        { ...rest, personalNumbers: [], identityDocumentReferences: [], hasSensitive: false, version: doc.version + 1, lastModified: new Date().toISOString() }, // the time of this write
        _etag,
      );
      return true;
    } catch (err) {
      if (!isStoreError(err, 'preconditionFailed')) throw err;
    }
  }
  return false;
}
