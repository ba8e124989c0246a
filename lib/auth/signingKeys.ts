/**
 * Entra's signing keys, from the common key set (`{authority}/common/discovery/v2.0/keys`): every
 * tenant's tokens are signed with these keys, so a token's signature is checked before anything is
 * looked up for its tenant, and a forged token of any tenant, registered or not, costs no store read.
 *
 * jwks-rsa keeps the keys by id (max age, stale keys kept through an outage of the key endpoint) and
 * limits fetches caused by key ids it does not know to a few a minute, so forged tokens with made-up
 * key ids cannot make the service hammer the endpoint.
 */
import { createPublicKey, type JsonWebKey } from 'node:crypto';
import { JwksClient, JwksRateLimitError, SigningKeyNotFoundError } from 'jwks-rsa';

export interface SigningKeysOptions {
  jwksUri: string;
  fetchJwks: (jwksUri: string) => Promise<unknown>;
  maxAgeMs: number;
  /** Fetches caused by key ids not in the cache, per minute. */
  refreshesPerMinute: number;
  /** A failure of the key endpoint is reported at most once in this time. */
  failureReportIntervalMs: number;
  now: () => number;
}

export interface SigningKeys {
  /** The PEM public key with that id, or undefined when Entra does not publish it (or refreshes are used up). */
  getKey(kid: string): Promise<string | undefined>;
}

/** The key endpoint could not be read and no key with the id is cached. */
export class KeysUnavailableError extends Error {
  constructor(
    /** True for the first request of an outage (report it), false while it is remembered. */
    readonly fetchFailed: boolean,
  ) {
    super('The signing keys could not be retrieved');
    this.name = 'KeysUnavailableError';
  }
}

const MIN_RSA_BITS = 2048;
const DEFAULT_FETCH_TIMEOUT_MS = 10_000;
const MAX_CACHED_KEYS = 50;

export async function defaultFetchJwks(uri: string): Promise<unknown> {
  const res = await fetch(uri, {
    headers: { accept: 'application/json' },
    signal: AbortSignal.timeout(DEFAULT_FETCH_TIMEOUT_MS),
  });
  if (!res.ok) throw new Error(`JWKS request failed with HTTP ${res.status}`);
  return (await res.json()) as unknown;
}

/** An RSA signing key of at least 2048 bits usable with RS256; anything else in the set is ignored. */
function isRsaSigningKey(jwk: unknown): boolean {
  if (typeof jwk !== 'object' || jwk === null) return false;
  const k = jwk as { kid?: unknown; kty?: unknown; use?: unknown; alg?: unknown };
  if (typeof k.kid !== 'string' || k.kty !== 'RSA') return false;
  if ((k.use !== undefined && k.use !== 'sig') || (k.alg !== undefined && k.alg !== 'RS256')) return false;
  try {
    const key = createPublicKey({ key: jwk as JsonWebKey, format: 'jwk' });
    return (key.asymmetricKeyDetails?.modulusLength ?? 0) >= MIN_RSA_BITS;
  } catch {
    return false;
  }
}

/** The RSA signing keys of a JWKS document; throws for a body that is not one, so it is never cached. */
export function rsaSigningKeys(body: unknown): { keys: unknown[] } {
  const list = typeof body === 'object' && body !== null ? (body as { keys?: unknown }).keys : undefined;
  if (!Array.isArray(list)) throw new Error('The JWKS response has no keys array');
  return { keys: list.filter(isRsaSigningKey) };
}

export function createSigningKeys(o: SigningKeysOptions): SigningKeys {
  const client = new JwksClient({
    jwksUri: o.jwksUri,
    fetcher: async (uri) => rsaSigningKeys(await o.fetchJwks(uri)),
    cache: true,
    cacheMaxEntries: MAX_CACHED_KEYS,
    cacheMaxAge: o.maxAgeMs,
    // A key fetched once stays usable through an outage of the endpoint for as long again.
    cacheMaxAgeFallback: o.maxAgeMs,
    rateLimit: true,
    jwksRequestsPerMinute: o.refreshesPerMinute,
  });
  let reportedAt = -Infinity;
  return {
    async getKey(kid) {
      try {
        return (await client.getSigningKey(kid)).getPublicKey();
      } catch (err) {
        if (err instanceof SigningKeyNotFoundError || err instanceof JwksRateLimitError) return undefined;
        const report = o.now() - reportedAt >= o.failureReportIntervalMs;
        if (report) reportedAt = o.now();
        throw new KeysUnavailableError(report);
      }
    },
  };
}
