/** Store failures in domain terms; nothing above lib/store sees Cosmos error shapes. */
export type StoreFailure = 'notFound' | 'conflict' | 'preconditionFailed' | 'throttled' | 'unavailable' | 'tooLarge';

export class StoreError extends Error {
  constructor(
    readonly failure: StoreFailure,
    message: string,
    /** For throttled/unavailable: how long the caller should wait before retrying. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'StoreError';
  }
}

export function isStoreError(err: unknown, failure?: StoreFailure): err is StoreError {
  return err instanceof StoreError && (failure === undefined || err.failure === failure);
}

function statusOf(err: object): number | undefined {
  const e = err as CosmosLikeError;
  return typeof e.code === 'number' ? e.code : e.statusCode;
}

interface CosmosLikeError {
  code?: number | string;
  statusCode?: number;
  retryAfterInMs?: number;
  retryAfterInMilliseconds?: number;
}

/**
 * Maps an @azure/cosmos error to a StoreError; other errors pass through unchanged. A transactional batch the
 * store refused as a whole reaches us wrapped (the SDK throws `Error('Batch request error: …', { cause })`):
 * its cause carries the store's status, so a throttled batch is `throttled` with the store's wait.
 */
export function toStoreError(err: unknown): unknown {
  if (err instanceof StoreError || typeof err !== 'object' || err === null) return err;
  const cause = (err as { cause?: unknown }).cause;
  if (statusOf(err) === undefined && typeof cause === 'object' && cause !== null && statusOf(cause) !== undefined) {
    const mapped = toStoreError(cause);
    if (mapped instanceof StoreError) return mapped;
  }
  const e = err as CosmosLikeError;
  const status = typeof e.code === 'number' ? e.code : e.statusCode;
  switch (status) {
    case 404:
      return new StoreError('notFound', 'Item not found');
    case 409:
      return new StoreError('conflict', 'Item already exists or violates a unique key');
    case 412:
      return new StoreError('preconditionFailed', 'Item changed since it was read');
    case 413:
      return new StoreError('tooLarge', 'Item too large');
    case 429:
      return new StoreError(
        'throttled',
        'Store is throttling requests',
        e.retryAfterInMs ?? e.retryAfterInMilliseconds ?? 1000,
      );
    case 408:
    case 449:
    case 500:
    case 502:
    case 503:
      // The store's own Retry-After where it sends one (449 and 503 may carry x-ms-retry-after-ms).
      return new StoreError(
        'unavailable',
        'Store temporarily unavailable',
        e.retryAfterInMs ?? e.retryAfterInMilliseconds ?? 1000,
      );
    default:
      if (e.code === 'ECONNREFUSED' || e.code === 'ECONNRESET' || e.code === 'ETIMEDOUT') {
        return new StoreError('unavailable', 'Store unreachable', 1000);
      }
      return err;
  }
}
