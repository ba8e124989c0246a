/**
 * Bearer-token validation for multi-tenant Entra ID access tokens (RS256 only).
 * The issuer must be the token's own tenant (`<authority>/<tid>/v2.0`, or the v1
 * `https://sts.windows.net/<tid>/` against the real authority); keys come from that
 * tenant's JWKS, cached per tenant, refreshed at most once per interval when an unknown
 * `kid` appears (key rotation). Nothing here logs, and no message contains the token.
 */
import { createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';

export type CallerKind = 'app' | 'user';

export interface Caller {
  tenantId: string;
  clientId: string;
  roles: string[];
  kind: CallerKind;
  objectId?: string;
}

export type TokenFailure =
  | 'missing'
  | 'malformed'
  | 'invalid_signature'
  | 'expired'
  | 'not_yet_valid'
  | 'wrong_audience'
  | 'wrong_issuer'
  | 'unsupported_algorithm'
  | 'unknown_key';

export class TokenValidationError extends Error {
  constructor(
    readonly failure: TokenFailure,
    message: string,
  ) {
    super(message);
    this.name = 'TokenValidationError';
  }
}

export interface TokenValidatorOptions {
  authority: string;
  audiences: string[];
  clockSkewSeconds?: number;
  jwksCacheMaxAgeMs?: number;
  jwksRefreshMinIntervalMs?: number;
  fetchJwks?: (jwksUri: string) => Promise<unknown>;
  now?: () => number;
}

const ENTRA_AUTHORITY = 'https://login.microsoftonline.com';
const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

export function parseBearer(header: string | undefined | null): string {
  if (header === undefined || header === null || header.trim() === '') throw new TokenValidationError('missing', 'A bearer token is required');
  const parts = header.trim().split(/\s+/);
  if (parts.length !== 2 || parts[0]?.toLowerCase() !== 'bearer' || !parts[1]) {
    throw new TokenValidationError('malformed', 'The Authorization header must be "Bearer <token>"');
  }
  return parts[1];
}

interface DecodedParts {
  header: { alg?: unknown; kid?: unknown };
  payload: Record<string, unknown>;
}

function decodeUnverified(token: string): DecodedParts {
  const segments = token.split('.');
  if (segments.length !== 3 || !segments.every((s, i) => (i === 2 ? s === '' || BASE64URL.test(s) : BASE64URL.test(s)))) {
    throw new TokenValidationError('malformed', 'The token is not a JWS compact serialization');
  }
  try {
    const header = JSON.parse(Buffer.from(segments[0] ?? '', 'base64url').toString('utf8')) as unknown;
    const payload = JSON.parse(Buffer.from(segments[1] ?? '', 'base64url').toString('utf8')) as unknown;
    if (typeof header !== 'object' || header === null || typeof payload !== 'object' || payload === null || Array.isArray(payload)) throw new Error();
    return { header: header as DecodedParts['header'], payload: payload as Record<string, unknown> };
  } catch {
    throw new TokenValidationError('malformed', 'The token header or payload is not JSON');
  }
}

interface TenantKeys {
  keys: Map<string, KeyObject>;
  fetchedAt: number;
  lastRefreshAt: number;
}

async function defaultFetchJwks(uri: string): Promise<unknown> {
  const res = await fetch(uri, { signal: AbortSignal.timeout(10_000) });
  if (!res.ok) throw new Error(`JWKS request failed with HTTP ${res.status}`);
  return res.json();
}

function keysFromJwks(body: unknown): Map<string, KeyObject> {
  const keys = new Map<string, KeyObject>();
  const list = typeof body === 'object' && body !== null ? (body as { keys?: unknown }).keys : undefined;
  if (!Array.isArray(list)) return keys;
  for (const jwk of list) {
    if (typeof jwk !== 'object' || jwk === null) continue;
    const k = jwk as { kid?: unknown; kty?: unknown; use?: unknown };
    if (typeof k.kid !== 'string' || k.kty !== 'RSA' || (k.use !== undefined && k.use !== 'sig')) continue;
    try {
      keys.set(k.kid, createPublicKey({ key: jwk as JsonWebKey, format: 'jwk' }));
    } catch {
      // A key we cannot read is skipped; tokens signed with it fail as unknown_key.
    }
  }
  return keys;
}

/**
 * Keys are cached per tenant with node:crypto rather than jwks-rsa, because the cache must be
 * keyed by tenant (each has its own JWKS URI) with a per-tenant refresh rate limit and one
 * shared in-flight fetch; that is a few lines here and awkward to express with jwks-rsa clients.
 */
export function createTokenValidator(o: TokenValidatorOptions): { validate(authorizationHeader: string | undefined | null): Promise<Caller> } {
  const authority = o.authority.replace(/\/+$/, '');
  const skew = o.clockSkewSeconds ?? 300;
  const maxAge = o.jwksCacheMaxAgeMs ?? 24 * 3600_000;
  const minRefresh = o.jwksRefreshMinIntervalMs ?? 60_000;
  const fetchJwks = o.fetchJwks ?? defaultFetchJwks;
  const now = o.now ?? Date.now;
  const cache = new Map<string, TenantKeys>();
  const inflight = new Map<string, Promise<TenantKeys>>();

  const load = (tid: string): Promise<TenantKeys> => {
    const pending = inflight.get(tid);
    if (pending) return pending;
    const p = (async () => {
      const keys = keysFromJwks(await fetchJwks(`${authority}/${tid}/discovery/v2.0/keys`));
      const entry = { keys, fetchedAt: now(), lastRefreshAt: now() };
      cache.set(tid, entry);
      return entry;
    })().finally(() => inflight.delete(tid));
    inflight.set(tid, p);
    return p;
  };

  const keyFor = async (tid: string, kid: string): Promise<KeyObject> => {
    let entry = cache.get(tid);
    if (!entry || now() - entry.fetchedAt > maxAge) entry = await load(tid);
    let key = entry.keys.get(kid);
    if (!key && now() - entry.lastRefreshAt >= minRefresh) {
      entry = await load(tid);
      key = entry.keys.get(kid);
    }
    if (!key) throw new TokenValidationError('unknown_key', 'The token was signed with a key the tenant does not publish');
    return key;
  };

  return {
    async validate(authorizationHeader) {
      const token = parseBearer(authorizationHeader);
      const { header, payload } = decodeUnverified(token);
      if (header.alg !== 'RS256') throw new TokenValidationError('unsupported_algorithm', 'Only RS256-signed tokens are accepted');
      if (typeof header.kid !== 'string' || header.kid === '') throw new TokenValidationError('malformed', 'The token header has no key id');

      const tid = payload.tid;
      if (typeof tid !== 'string' || !GUID.test(tid)) throw new TokenValidationError('wrong_issuer', 'The token has no valid tenant id');
      const tenant = tid.toLowerCase();
      const iss = typeof payload.iss === 'string' ? payload.iss : '';
      const v2 = `${authority}/${tenant}/v2.0`;
      const v1 = `https://sts.windows.net/${tenant}/`;
      const issuerOk = iss.toLowerCase() === v2.toLowerCase() || (authority === ENTRA_AUTHORITY && iss.toLowerCase() === v1);
      if (!issuerOk) throw new TokenValidationError('wrong_issuer', 'The token issuer is not the token tenant at the expected authority');

      const key = await keyFor(tenant, header.kid);
      let verified: Record<string, unknown>;
      try {
        verified = jwt.verify(token, key, { algorithms: ['RS256'], clockTolerance: skew, clockTimestamp: Math.floor(now() / 1000) }) as Record<string, unknown>;
      } catch (err) {
        if (err instanceof jwt.TokenExpiredError) throw new TokenValidationError('expired', 'The token has expired');
        if (err instanceof jwt.NotBeforeError) throw new TokenValidationError('not_yet_valid', 'The token is not valid yet');
        throw new TokenValidationError('invalid_signature', 'The token signature is not valid');
      }
      const aud = verified.aud;
      const audiences = Array.isArray(aud) ? aud : [aud];
      if (!audiences.some((a) => typeof a === 'string' && o.audiences.includes(a))) {
        throw new TokenValidationError('wrong_audience', 'The token is not for this service');
      }
      const clientId = typeof verified.azp === 'string' ? verified.azp : typeof verified.appid === 'string' ? verified.appid : '';
      if (!clientId) throw new TokenValidationError('malformed', 'The token names no client application');
      const roles = Array.isArray(verified.roles) ? verified.roles.filter((r): r is string => typeof r === 'string') : [];
      const kind: CallerKind = verified.scp !== undefined || verified.idtyp === 'user' ? 'user' : 'app';
      return { tenantId: tenant, clientId: clientId.toLowerCase(), roles, kind, objectId: typeof verified.oid === 'string' ? verified.oid : undefined };
    },
  };
}
