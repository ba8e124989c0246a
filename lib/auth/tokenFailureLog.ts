import type { Logger } from '../log/logger';
import type { TokenValidationError } from './tokenValidator';

/**
 * Logs what an operator must act on among token failures: Entra's signing keys cannot be fetched.
 * Once per outage period, not once per request. Other failures are the caller's and stay unlogged here.
 */
export function logTokenFailure(log: Logger, err: TokenValidationError): void {
  if (err.failure === 'keys_unavailable' && err.keys?.fetchFailed) {
    log.warn('signing keys could not be fetched; tokens signed with keys not cached are refused until they can be');
  }
}
