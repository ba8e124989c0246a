/**
 * Whether a failed unit of background work should wait and be tried again (the tenant's directory
 * throttles, is unavailable, or refuses the service) instead of failing towards the poison queue.
 */
import { GraphError } from '@microsoft/microsoft-graph-client';
import { DirectoryAccessError, DirectoryUnavailableError } from '../directory/directoryClient';

export type DeferralReason = 'throttled' | 'unavailable' | 'notConsented';

export interface Deferral {
  reason: DeferralReason;
  seconds: number;
}

const UNAVAILABLE_MIN_SECONDS = 60;
const NOT_CONSENTED_SECONDS = 15 * 60;

export function deferralFor(err: unknown): Deferral | undefined {
  if (err instanceof DirectoryAccessError) return { reason: 'notConsented', seconds: NOT_CONSENTED_SECONDS };
  if (err instanceof GraphError && (err.statusCode === 401 || err.statusCode === 403))
    return { reason: 'notConsented', seconds: NOT_CONSENTED_SECONDS };
  if (err instanceof DirectoryUnavailableError) {
    const seconds = Math.max(1, Math.ceil(err.retryAfterMs / 1000));
    return err.status === 429
      ? { reason: 'throttled', seconds }
      : { reason: 'unavailable', seconds: Math.max(UNAVAILABLE_MIN_SECONDS, seconds) };
  }
  return undefined;
}
