/**
 * Counters of store operations, reported by benchmarks beside latencies; and the request units of one piece
 * of work (`measuringCharges`, through its awaits), for a figure the work reports itself (an import job's
 * writes per changed identity).
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export interface StoreCounters {
  pointReads: number;
  queries: number;
  queryPages: number;
  itemsReturned: number;
  writes: number;
  /** Writes to the identities container only (the item writes of an import). */
  identityWrites: number;
  /** Transactional batch requests (each carries up to 100 of the writes above). */
  batchRequests: number;
  /** The writes above that went in transactional batches (requests = writes - batchedWrites + batchRequests). */
  batchedWrites: number;
  requestCharge: number;
  /** Bulk (low-priority) requests paced by their tenant's request-unit budget (requestUnitPacing.ts). */
  pacedOperations: number;
  /** Of them, those that waited for the budget before they were sent, and how long in all. */
  pacedWaits: number;
  pacedWaitMs: number;
  /** Request units charged to them. */
  pacedRequestCharge: number;
  /** Of them, those the store throttled (429). */
  pacedThrottled: number;
  /**
   * Reads and writes of the fleet's leases (lib/store/fleetLeases.ts), and their charge: counted apart, so the
   * counters above measure the service's own work whatever renewals run meanwhile.
   */
  leaseRequests: number;
  leaseRequestCharge: number;
}

export function emptyCounters(): StoreCounters {
  return {
    pointReads: 0,
    queries: 0,
    queryPages: 0,
    itemsReturned: 0,
    writes: 0,
    identityWrites: 0,
    batchRequests: 0,
    batchedWrites: 0,
    requestCharge: 0,
    pacedOperations: 0,
    pacedWaits: 0,
    pacedWaitMs: 0,
    pacedRequestCharge: 0,
    pacedThrottled: 0,
    leaseRequests: 0,
    leaseRequestCharge: 0,
  };
}

const counters: StoreCounters = emptyCounters();

export function storeCounters(): Readonly<StoreCounters> {
  return { ...counters };
}

export function resetStoreCounters(): void {
  Object.assign(counters, emptyCounters());
}

const workCharges = new AsyncLocalStorage<{ requestUnits: number }>();

/** Runs `work` and answers what the store charged for the requests it made (request units). */
export async function measuringCharges<R>(work: () => Promise<R>): Promise<{ value: R; requestUnits: number }> {
  const meter = { requestUnits: 0 };
  const value = await workCharges.run(meter, work);
  return { value, requestUnits: meter.requestUnits };
}

export function count(kind: keyof StoreCounters, n = 1): void {
  counters[kind] += n;
  if (kind === 'requestCharge') {
    const meter = workCharges.getStore();
    if (meter) meter.requestUnits += n;
  }
}

export function diffCounters(after: StoreCounters, before: StoreCounters): StoreCounters {
  const out = emptyCounters();
  for (const k of Object.keys(out) as Array<keyof StoreCounters>) out[k] = after[k] - before[k];
  return out;
}
