/**
 * Writes whose document carries the time of its write (`lastModified`): when the store throttles, the
 * write is sent again after the store's wait with a new time, instead of the store client resending it
 * unchanged up to 10 s later. A client that polls `meta.lastModified gt <its last poll - 1 s>` then finds
 * every version: the time a version carries is never more than one request older than its arrival.
 * The write passed in must not wait out throttling itself (`retryThrottled: false`). The waits are those
 * of the retry policy's interactive budget (retryPolicy.ts).
 */
import { RETRY, retrying } from './retryPolicy';

/** How long one write waits out throttling in all before the store's error is passed on (as the store client does). */
export const MAX_THROTTLED_WAIT_MS = RETRY.interactive.throttled.totalWaitMs ?? 10_000;

export async function writeStamped<R>(
  write: (now: string) => Promise<R>,
  maxWaitMs: number = MAX_THROTTLED_WAIT_MS,
): Promise<R> {
  const budget =
    maxWaitMs === MAX_THROTTLED_WAIT_MS
      ? RETRY.interactive
      : { ...RETRY.interactive, throttled: { ...RETRY.interactive.throttled, totalWaitMs: maxWaitMs } };
  return retrying(budget, () => write(new Date().toISOString()));
}
