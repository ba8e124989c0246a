import type { Logger } from '../log/logger';
import type { TokenValidationError } from './tokenValidator';

/**
 * Logs what an operator must act on among token failures: a registered tenant whose signing keys
 * cannot be fetched. Once per failed fetch (the validator then refuses that tenant's tokens for a
 * while without fetching), not once per request. Other failures are the caller's and stay unlogged here.
 */
export function logTokenFailure(log: Logger, err: TokenValidationError): void {
  if (err.failure === 'keys_unavailable' && err.keys?.fetchFailed) {
    log.warn('signing keys of a registered tenant could not be fetched; its tokens are refused until they can be', {
      tenantId: err.keys.tenantId,
    });
  }
}
