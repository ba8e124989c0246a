import { writeStamped } from '../store/stampedWrite';
import { RETRY, retrying } from '../store/retryPolicy';
import type { Store } from '../store/store';
import { isStoreError } from '../store/errors';
import type { IdentityDoc } from './model';
import { attributesOf, nextIdentityVersion, withoutSensitiveData } from './rules';
import { byBackground, withChange } from './history';
import { dueForRetention, nextPartitionDueForRetention } from '../store/queries/identities';

export interface RetentionResult {
  examined: number;
  purged: number;
  skipped: number;
  /** More expired identities may follow: run the unit again. */
  more: boolean;
}

/**
 * Identities that hold sensitive data and have been inactive since before the cutoff. `inactiveSince`
 * exists only while an identity is inactive (a reactivation removes it), and every purge checks
 * `active` again before it writes.
 */
/** Partitions the planner looks for before it stops (a safety bound; far beyond any real count of sources). */
const MAX_PLANNED_PARTITIONS = 100_000;

export function retentionCutoff(inactiveDays: number, now: Date): string {
  return new Date(now.getTime() - inactiveDays * 86_400_000).toISOString();
}

export interface DuePartition {
  tenantId: string;
  /** The identities partition (`<tenantId>|<sourceKey>`). */
  pk: string;
}

/**
 * The identity partitions (tenant and source) that hold identities whose sensitive data is due for
 * deletion, all tenants (a tenant removed from the registry included) or one. One indexed query per
 * such partition, each returning one item: the next due partition in key order. The cost grows with
 * the number of partitions that have work, not with the number of due identities.
 */
export async function partitionsWithExpiredSensitiveData(
  store: Store,
  inactiveDays: number,
  now: Date = new Date(),
  tenantId?: string,
): Promise<DuePartition[]> {
  const identities = store.collection<IdentityDoc>('identities');
  const cutoff = retentionCutoff(inactiveDays, now);
  const out: DuePartition[] = [];
  let after = '';
  while (out.length < MAX_PLANNED_PARTITIONS) {
    const page = await identities.page(nextPartitionDueForRetention(cutoff, after, tenantId), { maxItemCount: 1 });
    const next = page.items[0];
    if (!next) break;
    out.push({ tenantId: next.tenantId, pk: next.pk });
    after = next.pk;
  }
  return out;
}

/**
 * One unit of retention: deletes personal numbers and document references of at most `limit`
 * identities of one partition (tenant and source) inactive for at least `inactiveDays`. The query
 * names its partition and needs no order: a purged identity no longer matches it, so the next run
 * of the unit finds the ones still due. Idempotent; re-checks each identity before writing, so a
 * reactivation that races with it wins.
 */
export async function purgePartitionExpiredSensitiveData(
  store: Store,
  pk: string,
  inactiveDays: number,
  limit: number,
  now: Date = new Date(),
): Promise<RetentionResult> {
  const cutoff = retentionCutoff(inactiveDays, now);
  const identities = store.collection<IdentityDoc>('identities');
  const result: RetentionResult = { examined: 0, purged: 0, skipped: 0, more: false };
  const page = await identities.page(dueForRetention(pk, cutoff, limit + 1), { maxItemCount: limit + 1 });
  for (const id of page.items.slice(0, limit)) {
    result.examined++;
    if (await purgeOne(store, pk, id, cutoff)) result.purged++;
    else result.skipped++;
  }
  // Identities that could not be purged stay due: without progress the next planner run takes them up.
  result.more = page.items.length > limit && result.purged > 0;
  return result;
}

async function purgeOne(store: Store, pk: string, id: string, cutoff: string): Promise<boolean> {
  const identities = store.collection<IdentityDoc>('identities');
  // Changed meanwhile (a reactivation, an update): read again and decide again; still changing, skipped.
  return retrying(RETRY.changed, async () => {
    const doc = await identities.read(pk, id);
    if (!doc || doc.active || !doc.inactiveSince || doc.inactiveSince > cutoff || !doc.hasSensitive) return false;
    const { _etag, ...rest } = doc;
    const purged = withoutSensitiveData(attributesOf(rest));
    // lastModified: the time of this write, taken again on each try when the store throttles.
    await writeStamped((now) =>
      identities.replace(
        withChange(rest, nextIdentityVersion(rest, { attributes: purged }, now), {
          actor: byBackground('retention'),
          operation: 'RETENTION',
        }),
        _etag,
        { retryThrottled: false },
      ),
    );
    return true;
  }).catch((err: unknown) => {
    if (isStoreError(err, 'preconditionFailed')) return false;
    throw err;
  });
}
