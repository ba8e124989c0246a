/**
 * Heavy work (imports, associations, background units, retention) runs at low priority: with Cosmos DB's
 * priority-based execution, when a container's request units run short the store throttles low-priority
 * requests first, so a tenant's SCIM and administrator requests are served before another tenant's bulk
 * work. The priority follows the work through its awaits (AsyncLocalStorage): every store call made
 * inside `atLowPriority` carries `priorityLevel: Low`.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { PriorityLevel } from '@azure/cosmos';

interface WorkPriority {
  low: boolean;
  /** The tenant whose bulk work this is, so the store can pace it by the tenant's request-unit budget. */
  tenantId?: string;
}

const lowPriority = new AsyncLocalStorage<WorkPriority>();

/** Runs `work` at low priority; `tenantId` names the tenant whose bulk work it is (omitted: nobody's in particular). */
export function atLowPriority<R>(work: () => Promise<R>, tenantId?: string): Promise<R> {
  return lowPriority.run(tenantId === undefined ? { low: true } : { low: true, tenantId }, work);
}

/** Runs `work` at the default (high) priority, also when called from low-priority work. */
export function atHighPriority<R>(work: () => Promise<R>): Promise<R> {
  return lowPriority.run({ low: false }, work);
}

/** Whether the calling work runs at low priority. */
export function isLowPriority(): boolean {
  return lowPriority.getStore()?.low === true;
}

/** The tenant whose low-priority bulk work is calling, if it named one. */
export function bulkWorkTenant(): string | undefined {
  const current = lowPriority.getStore();
  return current?.low === true ? current.tenantId : undefined;
}

/** The request options of the calling work's priority (none for high, the store's default). */
export function priorityOptions(): { priorityLevel?: PriorityLevel } {
  return isLowPriority() ? { priorityLevel: PriorityLevel.Low } : {};
}
