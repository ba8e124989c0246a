/**
 * Writes whose document carries the time of its write (`lastModified`): when the store throttles, the
 * write is sent again after the store's wait with a new time, instead of the store client resending it
 * unchanged up to 10 s later. A client that polls `meta.lastModified gt <its last poll - 1 s>` then finds
 * every version: the time a version carries is never more than one request older than its arrival.
 * The write passed in must not wait out throttling itself (`retryThrottled: false`).
 */
import { isStoreError } from './errors';

/** How long one write waits out throttling in all before the store's error is passed on (as the store client does). */
export const MAX_THROTTLED_WAIT_MS = 10_000;
const DEFAULT_THROTTLED_WAIT_MS = 1_000;

export async function writeStamped<R>(
  write: (now: string) => Promise<R>,
  maxWaitMs = MAX_THROTTLED_WAIT_MS,
): Promise<R> {
  for (let waited = 0; ;) {
    try {
      return await write(new Date().toISOString());
    } catch (err) {
      if (!isStoreError(err, 'throttled')) throw err;
      const wait = Math.max(1, err.retryAfterMs ?? DEFAULT_THROTTLED_WAIT_MS);
      if (waited + wait > maxWaitMs) throw err;
      await new Promise((r) => setTimeout(r, wait));
      waited += wait;
    }
  }
}
