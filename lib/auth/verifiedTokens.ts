/**
 * Remembers tokens whose signature, issuer, audience and lifetime were verified, until they expire,
 * so a client that sends the same access token for an hour pays for one RSA verification instead of
 * one per request. Entries are keyed by a SHA-256 hash of the token (the token itself is never kept)
 * and bounded in number: the least recently used is dropped first. The Map keeps insertion order and an
 * entry is moved to its end on every hit, so its first key is the least recently used one and insert,
 * hit and eviction each cost O(1), never a walk over the entries. A remembered token still goes through the
 * tenant-registration check on every request; the integration check happens after validation, as
 * for any token. A key the tenant withdraws stops accepting new tokens at once; tokens verified with
 * it before are accepted until their own expiry (at most the token lifetime, about an hour in Entra ID).
 */
import { createHash } from 'node:crypto';
import { parseBearer, TokenValidationError, type Caller, type TokenValidator } from './tokenValidator';

export interface VerifiedTokenOptions {
  /** Whether the token's tenant is registered (asked again on every request, remembered token or not). */
  isRegisteredTenant?: (tenantId: string) => Promise<boolean>;
  /** Most tokens remembered at once. */
  maxEntries?: number;
  now?: () => number;
}

interface Remembered {
  caller: Caller;
  /** The token's `exp`, in epoch milliseconds. */
  expiresAtMs: number;
}

export const DEFAULT_MAX_REMEMBERED_TOKENS = 10_000;

/** `exp` of a token the inner validator accepted (it refuses tokens without one). */
function expiryMsOf(token: string): number | undefined {
  const payload = token.split('.')[1];
  if (!payload) return undefined;
  try {
    const exp = (JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { exp?: unknown }).exp;
    return typeof exp === 'number' && Number.isFinite(exp) ? exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}

export function rememberVerifiedTokens(inner: TokenValidator, o: VerifiedTokenOptions = {}): TokenValidator {
  const max = o.maxEntries ?? DEFAULT_MAX_REMEMBERED_TOKENS;
  const now = o.now ?? Date.now;
  const remembered = new Map<string, Remembered>();

  const remember = (key: string, entry: Remembered): void => {
    remembered.delete(key);
    if (remembered.size >= max) {
      const leastRecent = remembered.keys().next();
      if (!leastRecent.done) remembered.delete(leastRecent.value);
    }
    remembered.set(key, entry);
  };

  return {
    async validate(authorizationHeader) {
      const token = parseBearer(authorizationHeader);
      const key = createHash('sha256').update(token).digest('base64url');
      const hit = remembered.get(key);
      if (hit && hit.expiresAtMs > now()) {
        // Most recently used now: moved to the end of the insertion order.
        remembered.delete(key);
        remembered.set(key, hit);
        if (o.isRegisteredTenant && !(await o.isRegisteredTenant(hit.caller.tenantId)))
          throw new TokenValidationError(
            'unregistered_tenant',
            'The token is not from an organization registered with the service',
          );
        return { ...hit.caller, roles: [...hit.caller.roles] };
      }
      if (hit) remembered.delete(key);
      const caller = await inner.validate(authorizationHeader);
      const expiresAtMs = expiryMsOf(token);
      if (expiresAtMs !== undefined && expiresAtMs > now())
        remember(key, { caller: { ...caller, roles: [...caller.roles] }, expiresAtMs });
      return caller;
    },
  };
}
