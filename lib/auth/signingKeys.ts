/**
 * Entra's signing keys, from the common key set (`{authority}/common/discovery/v2.0/keys`): every
 * tenant's tokens are signed with these keys, so a token's signature is checked before anything is
 * looked up for its tenant, and a forged token of any tenant, registered or not, costs no store read.
 *
 * The whole set is fetched at once and kept as key objects by id for `maxAgeMs`. What may cause a fetch is
 * bounded, so forged tokens cannot turn into outbound requests:
 * - a key id the set does not hold causes at most one fetch per `refreshIntervalMs` (counted from the last
 *   fetch, whatever caused it); otherwise it is refused at once, nothing waits for a refresh;
 * - a failed fetch is remembered for `failureBackoffMs` plus up to a fifth more (jitter, so instances do
 *   not retry in step): in that time a key not held is refused at once, without another request;
 * - keys already held keep working through an outage of the endpoint, stale or not;
 * - callers that need a fetch at the same time share it.
 */
import { createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';

export interface SigningKeysOptions {
  jwksUri: string;
  fetchJwks: (jwksUri: string) => Promise<unknown>;
  /** A fetched set is used this long before it is fetched again. */
  maxAgeMs: number;
  /** Least time between two fetches caused by key ids the set does not hold. */
  refreshIntervalMs: number;
  /** A failed fetch is not tried again for this long (plus up to a fifth more). */
  failureBackoffMs: number;
  /** A failure of the key endpoint is reported at most once in this time. */
  failureReportIntervalMs: number;
  now: () => number;
  /** In [0, 1): the jitter of the back-off. */
  random?: () => number;
}

export interface SigningKeys {
  /** The public key with that id, or undefined when Entra does not publish it (or a refresh is not due). */
  getKey(kid: string): Promise<KeyObject | undefined>;
}

/** The key endpoint could not be read and no key with the id is held. */
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
const MAX_KEYS = 50;
const BACKOFF_JITTER = 0.2;

export async function defaultFetchJwks(uri: string): Promise<unknown> {
  const res = await fetch(uri, {
    headers: { accept: 'application/json' },
    signal: AbortSignal.timeout(DEFAULT_FETCH_TIMEOUT_MS),
  });
  if (!res.ok) throw new Error(`JWKS request failed with HTTP ${res.status}`);
  return (await res.json()) as unknown;
}

/** The key object of an RSA signing key of at least 2048 bits usable with RS256; undefined for anything else. */
function rsaSigningKey(jwk: unknown): { kid: string; key: KeyObject } | undefined {
  if (typeof jwk !== 'object' || jwk === null) return undefined;
  const k = jwk as { kid?: unknown; kty?: unknown; use?: unknown; alg?: unknown };
  if (typeof k.kid !== 'string' || k.kty !== 'RSA') return undefined;
  if ((k.use !== undefined && k.use !== 'sig') || (k.alg !== undefined && k.alg !== 'RS256')) return undefined;
  try {
    const key = createPublicKey({ key: jwk as JsonWebKey, format: 'jwk' });
    return (key.asymmetricKeyDetails?.modulusLength ?? 0) >= MIN_RSA_BITS ? { kid: k.kid, key } : undefined;
  } catch {
    return undefined;
  }
}

/** The RSA signing keys of a JWKS document by id; throws for a body that is not one, so it never replaces a set. */
export function rsaSigningKeys(body: unknown): Map<string, KeyObject> {
  const list = typeof body === 'object' && body !== null ? (body as { keys?: unknown }).keys : undefined;
  if (!Array.isArray(list)) throw new Error('The JWKS response has no keys array');
  const keys = new Map<string, KeyObject>();
  for (const jwk of list) {
    const found = rsaSigningKey(jwk);
    if (found && keys.size < MAX_KEYS && !keys.has(found.kid)) keys.set(found.kid, found.key);
  }
  if (keys.size === 0) throw new Error('The JWKS response has no RSA signing key');
  return keys;
}

export function createSigningKeys(o: SigningKeysOptions): SigningKeys {
  const random = o.random ?? Math.random;
  let keys = new Map<string, KeyObject>();
  let fetchedAt = -Infinity;
  let lastFetchAt = -Infinity;
  let failedUntil = -Infinity;
  let reportedAt = -Infinity;
  let fetching: Promise<boolean> | undefined;

  /** Whether this caller is the one to report the outage. */
  const report = (): boolean => {
    const now = o.now();
    if (now - reportedAt < o.failureReportIntervalMs) return false;
    reportedAt = now;
    return true;
  };

  /** One fetch for every caller that needs it now; resolves true when the set was replaced. */
  const refresh = (): Promise<boolean> => {
    fetching ??= (async () => {
      lastFetchAt = o.now();
      try {
        keys = rsaSigningKeys(await o.fetchJwks(o.jwksUri));
        fetchedAt = o.now();
        failedUntil = -Infinity;
        return true;
      } catch {
        failedUntil = o.now() + o.failureBackoffMs * (1 + BACKOFF_JITTER * random());
        return false;
      } finally {
        fetching = undefined;
      }
    })();
    return fetching;
  };

  return {
    async getKey(kid) {
      const now = o.now();
      const held = keys.get(kid);
      const fresh = now - fetchedAt < o.maxAgeMs;
      if (held && (fresh || fetching || now < failedUntil)) return held;
      if (!held) {
        if (now < failedUntil) throw new KeysUnavailableError(false);
        // A set fetched a moment ago is Entra's answer: a made-up id waits for the next interval.
        if (fresh && !fetching && now - lastFetchAt < o.refreshIntervalMs) return undefined;
      }
      const replaced = await refresh();
      const key = keys.get(kid);
      if (replaced || key) return key;
      throw new KeysUnavailableError(report());
    },
  };
}
