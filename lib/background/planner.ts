/**
 * The timers only plan: they enqueue one unit of background work per tenant that may have work,
 * and queue-triggered invocations do the units (scaling out with the queue). Pending links are
 * planned for every registered tenant (a tenant without due identities costs one indexed query);
 * retention for every tenant that has identities whose sensitive data is due for deletion.
 */
import type { Store } from '../store/store';
import type { TenantRegistry } from '../tenants/tenantRegistry';
import { tenantsWithExpiredSensitiveData } from '../identities/retention';
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
  const tenantIds = await atLowPriority(() => tenantsWithExpiredSensitiveData(store, inactiveDays, now));
  await forEachBounded(tenantIds, SEND_CONCURRENCY, (tenantId) => queue.send({ kind: 'retention', tenantId }));
  return { units: tenantIds.length };
}
