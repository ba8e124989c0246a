/**
 * Why the directory could not be asked, in words an operator can act on. A directory outage or a
 * missing consent never blocks a save: links wait as `pending` and the background run retries.
 */
import { AuthenticationError } from '@azure/identity';
import { TokenFetchError } from './graphTokens';

export type DirectoryTroubleReason = 'consentMissing' | 'throttled' | 'unavailable';

const ADVICE: Record<DirectoryTroubleReason, string> = {
  consentMissing:
    "The service application has no access to this tenant's directory: an administrator of the tenant must grant it admin consent (or the service's Graph credential is not valid). Links stay pending and are retried every run.",
  throttled:
    'The directory (Microsoft Graph) is throttling the service. Links stay pending and are retried by the next runs; nothing needs to be done unless it lasts.',
  unavailable:
    'The directory (Microsoft Graph) or the token service could not be reached. Links stay pending and are retried by the next runs.',
};

export function directoryAdvice(reason: DirectoryTroubleReason | 'notConsented'): string {
  return ADVICE[reason === 'notConsented' ? 'consentMissing' : reason];
}

const CALL_ADVICE: Record<DirectoryTroubleReason, string> = {
  consentMissing:
    'The service application has no access to the directory of this tenant: an administrator of the tenant must grant it admin consent; then send the call again',
  throttled: 'The directory is throttling the service; send the call again after retryAfterSeconds',
  unavailable: 'The directory could not be reached; send the call again after retryAfterSeconds',
};

/** For a caller whose call needed the directory (association, administrator link). */
export function directoryCallAdvice(reason: DirectoryTroubleReason): string {
  return CALL_ADVICE[reason];
}

/** Seconds after which asking again makes sense when the directory gave no Retry-After. */
export const DEFAULT_RETRY_MS: Record<DirectoryTroubleReason, number> = {
  consentMissing: 15 * 60_000,
  throttled: 5_000,
  unavailable: 5_000,
};

export class DirectoryUnavailableError extends Error {
  constructor(
    readonly status: number,
    readonly retryAfterMs: number,
    readonly reason: DirectoryTroubleReason = status === 429 ? 'throttled' : 'unavailable',
  ) {
    super(
      reason === 'consentMissing'
        ? 'The service has no access to the directory of this tenant'
        : reason === 'throttled'
          ? 'The directory is throttling requests'
          : `The directory is unavailable (HTTP ${status})`,
    );
    this.name = 'DirectoryUnavailableError';
  }
}

/** No access to the tenant's directory: the service is not (or no longer) consented there, or its credential is refused. */
export class DirectoryAccessError extends DirectoryUnavailableError {
  constructor(status = -1) {
    super(status, DEFAULT_RETRY_MS.consentMissing, 'consentMissing');
    this.name = 'DirectoryAccessError';
  }
}

/** A failed app-only token request: refused by the identity provider (consent, credential) or not answered. */
export function tokenFailure(err: unknown): DirectoryUnavailableError {
  const status = err instanceof TokenFetchError ? err.status : err instanceof AuthenticationError ? err.statusCode : 0;
  if (status === 400 || status === 401 || status === 403) return new DirectoryAccessError(status);
  return new DirectoryUnavailableError(status, DEFAULT_RETRY_MS.unavailable, 'unavailable');
}

/**
 * Graph refused a request as such (a 4xx other than authentication, throttling or time-out): an answer
 * about what was asked (e.g. a UPN the directory cannot hold), not a reason to wait and send it again.
 */
export class DirectoryQueryRefusedError extends Error {
  constructor(readonly status: number) {
    super(`The directory refused the query (HTTP ${status})`);
    this.name = 'DirectoryQueryRefusedError';
  }
}

/** Whether a Graph status refuses the request itself (see DirectoryQueryRefusedError). */
export function isRefusal(status: number): boolean {
  return status >= 400 && status < 500 && ![401, 403, 404, 408, 410, 429].includes(status);
}
