/** Retries of one unit of work (an association pair) whose failure may pass: throttling, an outage, a write race. */
import { isStoreError } from '../store/errors';
import { DomainError } from '../util/domainError';
import { CODE } from '../util/errorCodes';

/** Tries of one unit before it is reported as not done. */
export const TRANSIENT_ATTEMPTS = 3;
const FIRST_WAIT_MS = 100;
/** A longer Retry-After is not waited for inside one request: the unit is reported instead. */
const MAX_WAIT_MS = 5_000;

/** How long to wait before the next try, or undefined when the failure will not pass by trying again. */
export function transientWait(err: unknown, attempt: number): number | undefined {
  if (isStoreError(err, 'throttled') || isStoreError(err, 'unavailable'))
    return err.retryAfterMs ?? FIRST_WAIT_MS * 4 ** (attempt - 1);
  if (err instanceof DomainError && err.code === CODE.CONCURRENT_CHANGE) return FIRST_WAIT_MS * 4 ** (attempt - 1);
  return undefined;
}

/** Runs `fn` up to TRANSIENT_ATTEMPTS times, waiting the store's Retry-After (or a growing back-off) between tries. */
export async function withTransientRetry<T>(fn: () => Promise<T>, attempts = TRANSIENT_ATTEMPTS): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      const wait = transientWait(err, attempt);
      if (wait === undefined || attempt >= attempts || wait > MAX_WAIT_MS) throw err;
      await new Promise((r) => setTimeout(r, wait));
    }
  }
}
