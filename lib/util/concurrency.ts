import { isStoreError } from '../store/errors';

/** Runs `fn` over `items` with at most `limit` in flight; rejects with the first failure after all started work settles. */
export async function forEachBounded<T>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  let failure: unknown;
  const worker = async (): Promise<void> => {
    while (failure === undefined && next < items.length) {
      const i = next++;
      try {
        await fn(items[i] as T, i);
      } catch (err) {
        failure ??= err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failure !== undefined) throw failure;
}

/** Attempts of a read-modify-write whose entity-tag check keeps failing (another writer came first) before giving up. */
export const MAX_CHANGED_ATTEMPTS = 4;

/**
 * Retries a store call that was throttled (429) after the store's retry-after (at most 10 s a wait), up to a
 * number of tries or, with `{ withinMs }`, for as long as a new try can start within that time of the first.
 */
export async function withThrottleRetry<T>(
  fn: () => Promise<T>,
  limit: number | { withinMs: number } = 6,
  now: () => number = Date.now,
): Promise<T> {
  const giveUpAt = typeof limit === 'number' ? Infinity : now() + limit.withinMs;
  const attempts = typeof limit === 'number' ? limit : Infinity;
  for (let i = 1; ; i++) {
    try {
      return await fn();
    } catch (err) {
      if (i >= attempts || !isStoreError(err, 'throttled')) throw err;
      const waitMs = Math.min(err.retryAfterMs ?? 1000, 10_000);
      if (now() + waitMs > giveUpAt) throw err;
      await new Promise((r) => setTimeout(r, waitMs));
    }
  }
}
