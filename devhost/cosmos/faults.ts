/**
 * Store faults on demand, for integration tests and fault benchmarks: the local engine answers a chosen
 * document operation with a store error instead of doing it. The failure reaches the service as a real
 * Cosmos DB answer would: over HTTP, through the SDK (and its own retries of 429) and the service's
 * error mapping. A transactional batch fails whole when one of its operations is failed, as in Cosmos DB.
 *
 * The injector sees each operation before the engine does it; it fails it by throwing a StoreError
 * (lib/store/errors.ts) of the wanted kind (and, for throttled or unavailable, its Retry-After), or
 * anything else for a 500. Shipped code has no such seam: this lives in the local engine only.
 */
import { StoreError, type StoreFailure } from '../../lib/store/errors';

export type StoreOperation = 'read' | 'create' | 'replace' | 'upsert' | 'delete' | 'query';

/** The item an operation concerns: its document for writes, its id and partition for reads and deletes. */
export type FaultTarget = { pk: string; id: string } & Record<string, unknown>;

/** Called before every document operation of the engine; throwing fails the operation (see above). */
export type FaultInjector = (op: StoreOperation, container: string, target?: FaultTarget) => void;

let injector: FaultInjector | undefined;

/** Arms (or, with undefined, disarms) the engine's faults; one injector per process, like the engine's state. */
export function setFaultInjector(next: FaultInjector | undefined): void {
  injector = next;
}

export function faultsArmed(): boolean {
  return injector !== undefined;
}

/** How the engine answers a failed operation. */
export interface FaultAnswer {
  statusCode: number;
  code: string;
  retryAfterMs?: number;
}

const ANSWERS: Record<StoreFailure, { statusCode: number; code: string }> = {
  notFound: { statusCode: 404, code: 'NotFound' },
  conflict: { statusCode: 409, code: 'Conflict' },
  preconditionFailed: { statusCode: 412, code: 'PreconditionFailed' },
  tooLarge: { statusCode: 413, code: 'RequestEntityTooLarge' },
  throttled: { statusCode: 429, code: 'TooManyRequests' },
  unavailable: { statusCode: 503, code: 'ServiceUnavailable' },
};

/** The answer for the operation when the injector fails it; undefined: the engine does it. */
export function faultFor(op: StoreOperation, container: string, target?: FaultTarget): FaultAnswer | undefined {
  if (!injector) return undefined;
  try {
    injector(op, container, target);
    return undefined;
  } catch (err) {
    if (!(err instanceof StoreError)) return { statusCode: 500, code: 'InternalServerError' };
    const answer = ANSWERS[err.failure];
    const waits = err.failure === 'throttled' || err.failure === 'unavailable';
    return waits && err.retryAfterMs !== undefined ? { ...answer, retryAfterMs: err.retryAfterMs } : answer;
  }
}
