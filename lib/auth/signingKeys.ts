/**
 * Entra's signing keys, from the common key set (`{authority}/common/discovery/v2.0/keys`): every
 * tenant's tokens are signed with these keys, so a token's signature is checked before anything is
 * looked up for its tenant, and a forged token of any tenant, registered or not, costs no store read.
 *
 * jwks-rsa fetches the set and keeps the keys by id (max age, stale keys kept through an outage of the key
 * endpoint). A key id not seen before may cause a fetch only a few times a minute, so forged tokens with
 * made-up key ids cannot make the service hammer the endpoint; past that it is refused at once. (jwks-rsa's
 * own rate limit is not used: under a flood of made-up ids it queues callers for seconds each, so requests
 * piled up unanswered for minutes.)
 */
import { createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import { JwksClient, SigningKeyNotFoundError } from 'jwks-rsa';

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
  /** The public key with that id, or undefined when Entra does not publish it (or refreshes are used up). */
  getKey(kid: string): Promise<KeyObject | undefined>;
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
  /** Ids of keys Entra published in a set fetched so far. */
  const known = new Set<string>();
  /** Lookups of ids not known yet, under way: concurrent callers of one id share one refresh. */
  const lookups = new Map<string, Promise<KeyObject | undefined>>();
  const client = new JwksClient({
    jwksUri: o.jwksUri,
    fetcher: async (uri) => {
      const set = rsaSigningKeys(await o.fetchJwks(uri));
      // Every id of a set Entra published may be fetched for without counting as a refresh.
      if (known.size + set.keys.length > MAX_CACHED_KEYS) known.clear();
      for (const key of set.keys) known.add((key as { kid: string }).kid);
      return set;
    },
    cache: true,
    cacheMaxEntries: MAX_CACHED_KEYS,
    cacheMaxAge: o.maxAgeMs,
    // A key fetched once stays usable through an outage of the endpoint for as long again.
    cacheMaxAgeFallback: o.maxAgeMs,
  });
  const refreshes = { windowStart: -Infinity, used: 0 };
  /** Whether an id not seen before may cause a fetch now: refreshesPerMinute per minute, never waiting. */
  const mayRefresh = (): boolean => {
    const now = o.now();
    if (now - refreshes.windowStart >= 60_000) {
      refreshes.windowStart = now;
      refreshes.used = 0;
    }
    if (refreshes.used >= o.refreshesPerMinute) return false;
    refreshes.used++;
    return true;
  };
  let reportedAt = -Infinity;
  // Key objects by PEM: building one costs far more than checking a signature with it, so it is done once per key.
  const keyObjects = new Map<string, KeyObject>();
  const keyObjectOf = (pem: string): KeyObject => {
    let key = keyObjects.get(pem);
    if (!key) {
      if (keyObjects.size >= MAX_CACHED_KEYS) keyObjects.clear();
      key = createPublicKey(pem);
      keyObjects.set(pem, key);
    }
    return key;
  };
  /** The key, undefined when the set has no such id; rejects with the fetch's failure. */
  const fetchKey = async (kid: string): Promise<KeyObject | undefined> => {
    try {
      return keyObjectOf((await client.getSigningKey(kid)).getPublicKey());
    } catch (err) {
      if (err instanceof SigningKeyNotFoundError) return undefined;
      throw err;
    }
  };
  const shared = (kid: string): Promise<KeyObject | undefined> => {
    if (known.has(kid)) return fetchKey(kid);
    let pending = lookups.get(kid);
    if (!pending) {
      if (!mayRefresh()) return Promise.resolve(undefined);
      pending = fetchKey(kid).finally(() => lookups.delete(kid));
      lookups.set(kid, pending);
    }
    return pending;
  };
  return {
    async getKey(kid) {
      try {
        return await shared(kid);
      } catch {
        // Each caller learns whether it is the one to report the outage.
        const report = o.now() - reportedAt >= o.failureReportIntervalMs;
        if (report) reportedAt = o.now();
        throw new KeysUnavailableError(report);
      }
    },
  };
}
