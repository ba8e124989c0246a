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

/** Retries a store call that was throttled (429) after the store's retry-after, a bounded number of times. */
export async function withThrottleRetry<T>(fn: () => Promise<T>, attempts = 6): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await fn();
    } catch (err) {
      if (i >= attempts || !isStoreError(err, 'throttled')) throw err;
      await new Promise((r) => setTimeout(r, Math.min(err.retryAfterMs ?? 1000, 10_000)));
    }
  }
}
