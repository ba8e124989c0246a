/**
 * Heavy work (imports, associations, background units, retention) runs at low priority: with Cosmos DB's
 * priority-based execution, when a container's request units run short the store throttles low-priority
 * requests first, so a tenant's SCIM and administrator requests are served before another tenant's bulk
 * work. The priority follows the work through its awaits (AsyncLocalStorage): every store call made
 * inside `atLowPriority` carries `priorityLevel: Low`.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { PriorityLevel } from '@azure/cosmos';

const lowPriority = new AsyncLocalStorage<boolean>();

export function atLowPriority<R>(work: () => Promise<R>): Promise<R> {
  return lowPriority.run(true, work);
}

/** Runs `work` at the default (high) priority, also when called from low-priority work. */
export function atHighPriority<R>(work: () => Promise<R>): Promise<R> {
  return lowPriority.run(false, work);
}

/** Whether the calling work runs at low priority. */
export function isLowPriority(): boolean {
  return lowPriority.getStore() === true;
}

/** The request options of the calling work's priority (none for high, the store's default). */
export function priorityOptions(): { priorityLevel?: PriorityLevel } {
  return isLowPriority() ? { priorityLevel: PriorityLevel.Low } : {};
}
