import type { StoreError } from '../../../lib/store/errors';
import { isStoreError, toStoreError } from '../../../lib/store/errors';

describe('toStoreError', () => {
  it('maps the store statuses to their failures, with the store wait', () => {
    const throttled = toStoreError({ code: 429, retryAfterInMs: 250 });
    expect(isStoreError(throttled, 'throttled')).toBe(true);
    expect((throttled as StoreError).retryAfterMs).toBe(250);
    expect(isStoreError(toStoreError({ code: 412 }), 'preconditionFailed')).toBe(true);
    expect(isStoreError(toStoreError({ statusCode: 503 }), 'unavailable')).toBe(true);
  });

  it('reads the status of a batch the SDK wrapped (its cause), so a throttled batch is throttled, not a plain error', () => {
    const wrapped = new Error('Batch request error: Request rate is large', {
      cause: Object.assign(new Error('Request rate is large'), { code: 429, retryAfterInMs: 800 }),
    });
    const mapped = toStoreError(wrapped);
    expect(isStoreError(mapped, 'throttled')).toBe(true);
    expect((mapped as StoreError).retryAfterMs).toBe(800);
  });

  it('passes other errors through unchanged, wrapped or not', () => {
    const plain = new Error('boom');
    expect(toStoreError(plain)).toBe(plain);
    const wrappedPlain = new Error('Batch request error: boom', { cause: new Error('boom') });
    expect(toStoreError(wrappedPlain)).toBe(wrappedPlain);
  });
});
