/**
 * Per-tenant cache of signing keys from Entra JWKS documents.
 *
 * Built on node:crypto rather than jwks-rsa: every tenant has its own JWKS URI, and the cache
 * needs a per-tenant rate limit on unknown-`kid` refreshes plus one shared in-flight fetch per
 * tenant. jwks-rsa is one client per URI with its own global rate limiter, so it would take a
 * map of clients and still not share the refresh state the way this does in a few lines.
 */
import { createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';

export interface JwksCacheOptions {
  jwksUri: (tenantId: string) => string;
  fetchJwks: (jwksUri: string) => Promise<unknown>;
  maxAgeMs: number;
  refreshMinIntervalMs: number;
  /** After a tenant's first load failed, its tokens are refused without a fetch for this long. */
  failureRetryMs?: number;
  now: () => number;
  /** Bound on cached tenants; the least recently loaded is dropped first. */
  maxTenants?: number;
}

export interface JwksCache {
  /** The tenant's public key with that id, or undefined when the tenant does not publish it. */
  getKey(tenantId: string, kid: string): Promise<KeyObject | undefined>;
}

/** A tenant's keys could not be loaded and none are cached. */
export class KeysUnavailableError extends Error {
  constructor(
    readonly tenantId: string,
    /** True for the one request whose fetch failed; false while the failure is remembered (so it is reported once). */
    readonly fetchFailed: boolean,
  ) {
    super('The signing keys of the tenant could not be retrieved');
    this.name = 'KeysUnavailableError';
  }
}

interface TenantKeys {
  keys: Map<string, KeyObject>;
  /** When the set is due for a reload: max age after a fetch, sooner after a failed reload. */
  reloadAt: number;
}

const MIN_RSA_BITS = 2048;
const DEFAULT_MAX_TENANTS = 10_000;
const DEFAULT_FETCH_TIMEOUT_MS = 10_000;
const DEFAULT_FAILURE_RETRY_MS = 10_000;

export async function defaultFetchJwks(uri: string): Promise<unknown> {
  const res = await fetch(uri, {
    headers: { accept: 'application/json' },
    signal: AbortSignal.timeout(DEFAULT_FETCH_TIMEOUT_MS),
  });
  if (!res.ok) throw new Error(`JWKS request to ${uri} failed with HTTP ${res.status}`);
  return (await res.json()) as unknown;
}

function publicKeyOf(jwk: unknown): { kid: string; key: KeyObject } | undefined {
  if (typeof jwk !== 'object' || jwk === null) return undefined;
  const k = jwk as { kid?: unknown; kty?: unknown; use?: unknown; alg?: unknown };
  if (typeof k.kid !== 'string' || k.kty !== 'RSA') return undefined;
  if ((k.use !== undefined && k.use !== 'sig') || (k.alg !== undefined && k.alg !== 'RS256')) return undefined;
  try {
    const key = createPublicKey({ key: jwk as JsonWebKey, format: 'jwk' });
    // jsonwebtoken refuses short RSA keys at verify time; dropping them here makes such tokens unknown_key.
    if ((key.asymmetricKeyDetails?.modulusLength ?? 0) < MIN_RSA_BITS) return undefined;
    return { kid: k.kid, key };
  } catch {
    return undefined;
  }
}

/** Throws for a body that is not a JWKS document, so a broken response is never cached. */
export function keysFromJwks(body: unknown): Map<string, KeyObject> {
  const list = typeof body === 'object' && body !== null ? (body as { keys?: unknown }).keys : undefined;
  if (!Array.isArray(list)) throw new Error('The JWKS response has no keys array');
  const keys = new Map<string, KeyObject>();
  for (const jwk of list) {
    const parsed = publicKeyOf(jwk);
    if (parsed) keys.set(parsed.kid, parsed.key);
  }
  return keys;
}

export function createJwksCache(o: JwksCacheOptions): JwksCache {
  const maxTenants = o.maxTenants ?? DEFAULT_MAX_TENANTS;
  const cache = new Map<string, TenantKeys>();
  const inflight = new Map<string, Promise<TenantKeys>>();
  // Kept apart from the entries, which a reload replaces, so that it survives reloads.
  const lastKidRefreshAt = new Map<string, number>();
  // Tenants whose first load failed: no new fetch until then (one fetch, and one report, per period).
  const failedUntil = new Map<string, number>();
  const failureRetryMs = o.failureRetryMs ?? DEFAULT_FAILURE_RETRY_MS;

  const store = (tenantId: string, entry: TenantKeys): void => {
    cache.delete(tenantId);
    cache.set(tenantId, entry);
    for (const oldest of cache.keys()) {
      if (cache.size <= maxTenants) break;
      cache.delete(oldest);
      lastKidRefreshAt.delete(oldest);
    }
  };

  const load = (tenantId: string): Promise<TenantKeys> => {
    const pending = inflight.get(tenantId);
    if (pending) return pending;
    const p = (async () => {
      const entry = { keys: keysFromJwks(await o.fetchJwks(o.jwksUri(tenantId))), reloadAt: o.now() + o.maxAgeMs };
      store(tenantId, entry);
      failedUntil.delete(tenantId);
      return entry;
    })().finally(() => inflight.delete(tenantId));
    inflight.set(tenantId, p);
    return p;
  };

  /** Keys no older than max age; a stale set is still used (and retried after the refresh interval) when reloading fails. */
  const current = async (tenantId: string): Promise<{ entry: TenantKeys; fresh: boolean }> => {
    const cached = cache.get(tenantId);
    if (!inflight.has(tenantId) && cached && o.now() < cached.reloadAt) return { entry: cached, fresh: false };
    const failed = failedUntil.get(tenantId);
    if (!cached && !inflight.has(tenantId) && failed !== undefined && o.now() < failed)
      throw new KeysUnavailableError(tenantId, false);
    try {
      return { entry: await load(tenantId), fresh: true };
    } catch {
      if (!cached) {
        // Requests that shared the failed fetch: the first one to get here reports it.
        const first = (failedUntil.get(tenantId) ?? -Infinity) <= o.now();
        failedUntil.set(tenantId, o.now() + failureRetryMs);
        if (failedUntil.size > maxTenants) failedUntil.delete(failedUntil.keys().next().value as string);
        throw new KeysUnavailableError(tenantId, first);
      }
      cached.reloadAt = o.now() + o.refreshMinIntervalMs;
      return { entry: cached, fresh: false };
    }
  };

  const refreshAllowed = (tenantId: string): boolean => {
    const last = lastKidRefreshAt.get(tenantId);
    if (last !== undefined && o.now() - last < o.refreshMinIntervalMs) return false;
    lastKidRefreshAt.set(tenantId, o.now());
    return true;
  };

  return {
    async getKey(tenantId, kid) {
      const { entry, fresh } = await current(tenantId);
      const known = entry.keys.get(kid);
      // A set fetched for this very request already is the newest there is.
      if (known || fresh) return known;
      // A refresh already under way (say, for the same rotated key) is joined, not rate-limited.
      if (!inflight.has(tenantId) && !refreshAllowed(tenantId)) return undefined;
      try {
        return (await load(tenantId)).keys.get(kid);
      } catch {
        return undefined;
      }
    },
  };
}
