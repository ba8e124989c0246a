import { writeStamped } from '../store/stampedWrite';
import type { Store } from '../store/store';
import { isStoreError } from '../store/errors';
import type { IdentityDoc } from './model';

export interface RetentionResult {
  examined: number;
  purged: number;
  skipped: number;
  /** More expired identities may follow: continue after this identity id. */
  next?: string;
}

const DUE = 'c.hasSensitive = true AND c.active = false AND c.inactiveSince <= @cutoff';
const PLANNER_PAGE = 1000;

export function retentionCutoff(inactiveDays: number, now: Date): string {
  return new Date(now.getTime() - inactiveDays * 86_400_000).toISOString();
}

/**
 * The tenants that have identities whose sensitive data is due for deletion (all sources; a tenant
 * removed from the registry included). Reads only the tenant id of each due identity, in bounded pages.
 */
export async function tenantsWithExpiredSensitiveData(
  store: Store,
  inactiveDays: number,
  now: Date = new Date(),
  maxPages = 1000,
): Promise<string[]> {
  const identities = store.collection<IdentityDoc>('identities');
  const tenants = new Set<string>();
  let continuationToken: string | undefined;
  let pages = 0;
  do {
    const page = await identities.queryPage<{ tenantId: string }>(
      {
        query: `SELECT c.tenantId FROM c WHERE ${DUE}`,
        parameters: [{ name: '@cutoff', value: retentionCutoff(inactiveDays, now) }],
      },
      { maxItemCount: PLANNER_PAGE, continuationToken },
    );
    for (const item of page.items) tenants.add(item.tenantId);
    continuationToken = page.continuationToken;
  } while (continuationToken && ++pages < maxPages);
  return [...tenants].sort();
}

/**
 * One unit of retention: deletes personal numbers and document references of at most `limit`
 * identities of the tenant inactive for at least `inactiveDays` (all sources), in id order after
 * `after`. Idempotent; re-checks each identity before writing, so a reactivation that races with it wins.
 */
export async function purgeTenantExpiredSensitiveData(
  store: Store,
  tenantId: string,
  inactiveDays: number,
  after: string,
  limit: number,
  now: Date = new Date(),
): Promise<RetentionResult> {
  const cutoff = retentionCutoff(inactiveDays, now);
  const identities = store.collection<IdentityDoc>('identities');
  const result: RetentionResult = { examined: 0, purged: 0, skipped: 0 };
  const page = await identities.queryPage<{ id: string; pk: string }>(
    {
      query: `SELECT c.id, c.pk FROM c WHERE c.tenantId = @tenantId AND ${DUE} AND c.id > @after ORDER BY c.id`,
      parameters: [
        { name: '@tenantId', value: tenantId },
        { name: '@cutoff', value: cutoff },
        { name: '@after', value: after },
      ],
    },
    { maxItemCount: limit },
  );
  for (const ref of page.items) {
    result.examined++;
    if (await purgeOne(store, ref.pk, ref.id, cutoff)) result.purged++;
    else result.skipped++;
  }
  if (page.continuationToken && page.items.length > 0) result.next = page.items.at(-1)?.id;
  return result;
}

async function purgeOne(store: Store, pk: string, id: string, cutoff: string): Promise<boolean> {
  const identities = store.collection<IdentityDoc>('identities');
  for (let attempt = 0; attempt < 5; attempt++) {
    const doc = await identities.read(pk, id);
    if (!doc || doc.active || !doc.inactiveSince || doc.inactiveSince > cutoff || !doc.hasSensitive) return false;
    const { _etag, ...rest } = doc;
    try {
      // lastModified: the time of this write, taken again on each try when the store throttles.
      await writeStamped((now) =>
        identities.replace(
          {
            ...rest,
            personalNumbers: [],
            identityDocumentReferences: [],
            hasSensitive: false,
            version: doc.version + 1,
            lastModified: now,
          },
          _etag,
          { retryThrottled: false },
        ),
      );
      return true;
    } catch (err) {
      if (!isStoreError(err, 'preconditionFailed')) throw err;
    }
  }
  return false;
}
