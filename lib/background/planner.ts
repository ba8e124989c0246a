/**
 * The timers only plan: they enqueue units of background work (per tenant for pending links, per
 * identity partition for retention), and queue-triggered invocations do the units (scaling out with
 * the queue). Pending links are planned for every registered tenant (a tenant without due identities costs one indexed query);
 * retention for every identities partition (tenant and source) that has identities whose sensitive
 * data is due for deletion, found with one single-item query per such partition.
 */
import type { Store } from '../store/store';
import type { TenantRegistry } from '../tenants/tenantRegistry';
import { partitionsWithExpiredSensitiveData } from '../identities/retention';
import { forEachBounded } from '../util/concurrency';
import type { WorkQueue } from './workQueue';
import { atLowPriority } from '../store/priority';

const SEND_CONCURRENCY = 16;

export async function planPendingLinks(tenants: TenantRegistry, queue: WorkQueue): Promise<{ units: number }> {
  const registered = await tenants.list();
  await forEachBounded(registered, SEND_CONCURRENCY, (t) => queue.send({ kind: 'pendingLinks', tenantId: t.tenantId }));
  return { units: registered.length };
}

export async function planRetention(
  store: Store,
  queue: WorkQueue,
  inactiveDays: number,
  now = new Date(),
): Promise<{ units: number }> {
  const due = await atLowPriority(() => partitionsWithExpiredSensitiveData(store, inactiveDays, now));
  await forEachBounded(due, SEND_CONCURRENCY, (d) =>
    queue.send({ kind: 'retention', tenantId: d.tenantId, partition: d.pk }),
  );
  return { units: due.length };
}
