/**
 * Bearer-token validation for multi-tenant Entra ID access tokens (RS256 only).
 * The issuer must be the token's own tenant (`<authority>/<tid>/v2.0`, or the v1
 * `https://sts.windows.net/<tid>/` against the real authority); keys come from Entra's common key
 * set (see signingKeys). The signature is checked before the tenant's registration is looked up.
 * Nothing here logs, and no message contains the token.
 */
import type { KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { KeysUnavailableError, createSigningKeys, defaultFetchJwks } from './signingKeys';
import { claimProblem } from './claimChecks';

export type CallerKind = 'app' | 'user';

export interface Caller {
  tenantId: string;
  clientId: string;
  roles: string[];
  kind: CallerKind;
  objectId?: string;
  /** Delegated scopes (`scp`, space-separated in the token) of a user token; empty for app tokens. */
  scopes: string[];
  /** A user token's display name (`name`), as it was when the token was issued: recorded with the user's changes. */
  name?: string;
}

/** The longest display name kept (Entra's displayName is at most 256 characters; the log shows the start). */
export const MAX_CALLER_NAME = 100;

/** A user's display name as it is kept: control characters out, at most MAX_CALLER_NAME characters. */
export function callerName(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const printable = [...value].map((c) =>
    c.charCodeAt(0) < 0x20 || (c.charCodeAt(0) >= 0x7f && c.charCodeAt(0) <= 0x9f) ? ' ' : c,
  );
  const clean = [...printable.join('').trim()].slice(0, MAX_CALLER_NAME).join('');
  return clean === '' ? undefined : clean;
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
  | 'unknown_key'
  | 'unregistered_tenant'
  | 'keys_unavailable';

export class TokenValidationError extends Error {
  constructor(
    readonly failure: TokenFailure,
    message: string,
    /** keys_unavailable: whether this request is the first of an outage of the key endpoint (report it). */
    readonly keys?: { fetchFailed: boolean },
  ) {
    super(message);
    this.name = 'TokenValidationError';
  }
}

export interface TokenValidatorOptions {
  /** e.g. https://login.microsoftonline.com or the local stand-in http://127.0.0.1:7072 */
  authority: string;
  /** Accepted `aud` values: the App ID URI and the service's client id. */
  audiences: string[];
  clockSkewSeconds?: number;
  jwksCacheMaxAgeMs?: number;
  /** Least time between two key-set fetches caused by key ids not in the set (default 60 s). */
  jwksRefreshIntervalMs?: number;
  /** A failed key-set fetch is not tried again for this long, plus jitter (default 30 s). */
  jwksFailureBackoffMs?: number;
  fetchJwks?: (jwksUri: string) => Promise<unknown>;
  /** An outage of the key endpoint is reported (keys.fetchFailed) at most once in this time. */
  jwksFailureRetryMs?: number;
  /**
   * Whether the token's tenant is registered with the service. Asked only for a token whose signature,
   * expiry and audience are valid, so a forged token of any tenant costs no lookup (failure `unregistered_tenant`).
   */
  isRegisteredTenant?: (tenantId: string) => Promise<boolean>;
  /**
   * Refuse a token that does not say whether it is an application or a user token (`idtyp`). Production
   * sets it: Entra puts `idtyp` in app-only tokens, and in user tokens when the service application asks
   * for it (infra/scripts/create-entra-app.sh does), so only a token of another shape lacks it.
   */
  requireTokenType?: boolean;
  now?: () => number;
}

export interface TokenValidator {
  validate(authorizationHeader: string | undefined | null): Promise<Caller>;
}

type Claims = Record<string, unknown>;

interface UnverifiedToken {
  header: { alg?: unknown; kid?: unknown };
  payload: Claims;
}

const ENTRA_AUTHORITY = 'https://login.microsoftonline.com';
const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const BASE64URL = /^[A-Za-z0-9_-]*$/;
// RFC 6750: credentials = "Bearer" 1*SP b64token
const BEARER = /^(\S+) +([A-Za-z0-9\-._~+/]+=*)$/;

export function parseBearer(header: string | undefined | null): string {
  const value = header?.trim() ?? '';
  if (value === '') throw new TokenValidationError('missing', 'A bearer token is required');
  const match = BEARER.exec(value);
  if (!match || match[1]?.toLowerCase() !== 'bearer' || !match[2]) {
    throw new TokenValidationError('malformed', 'The Authorization header must be "Bearer <token>"');
  }
  return match[2];
}

function isObject(v: unknown): v is Claims {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function decodeSegment(segment: string): unknown {
  return JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
}

function decodeUnverified(token: string): UnverifiedToken {
  const segments = token.split('.');
  const [head, body] = segments;
  // The signature may be empty here so that an unsigned token is reported by its algorithm.
  if (segments.length !== 3 || !head || !body || !segments.every((s) => BASE64URL.test(s))) {
    throw new TokenValidationError('malformed', 'The token is not a JWS compact serialization');
  }
  let header: unknown;
  let payload: unknown;
  try {
    header = decodeSegment(head);
    payload = decodeSegment(body);
  } catch {
    throw new TokenValidationError('malformed', 'The token header or payload is not JSON');
  }
  if (!isObject(header) || !isObject(payload))
    throw new TokenValidationError('malformed', 'The token header or payload is not a JSON object');
  return { header, payload };
}

function keyIdOf(header: UnverifiedToken['header']): string {
  if (header.alg !== 'RS256')
    throw new TokenValidationError('unsupported_algorithm', 'Only RS256-signed tokens are accepted');
  if (typeof header.kid !== 'string' || header.kid === '')
    throw new TokenValidationError('malformed', 'The token header has no key id');
  return header.kid;
}

/** The token's tenant (lower case) when its issuer is that tenant at the authority. */
function issuingTenant(payload: Claims, authority: string): string {
  const tid = payload.tid;
  if (typeof tid !== 'string' || !GUID.test(tid))
    throw new TokenValidationError('wrong_issuer', 'The token has no valid tenant id');
  const tenant = tid.toLowerCase();
  const iss = payload.iss;
  if (typeof iss !== 'string' || !issuerIsTenant(iss, authority, tenant)) {
    throw new TokenValidationError(
      'wrong_issuer',
      'The token issuer is not the token tenant at the expected authority',
    );
  }
  return tenant;
}

function issuerIsTenant(iss: string, authority: string, tenant: string): boolean {
  const tenantBetween = (prefix: string, suffix: string): boolean =>
    iss.length === prefix.length + tenant.length + suffix.length &&
    iss.startsWith(prefix) &&
    iss.endsWith(suffix) &&
    iss.slice(prefix.length, iss.length - suffix.length).toLowerCase() === tenant;
  if (tenantBetween(`${authority}/`, '/v2.0')) return true;
  return authority === ENTRA_AUTHORITY && tenantBetween('https://sts.windows.net/', '/');
}

function verifySignature(token: string, key: KeyObject, skewSeconds: number, nowMs: number): Claims {
  let verified: unknown;
  try {
    verified = jwt.verify(token, key, {
      algorithms: ['RS256'],
      clockTolerance: skewSeconds,
      clockTimestamp: Math.floor(nowMs / 1000),
    });
  } catch (err) {
    throw failureOf(err);
  }
  if (!isObject(verified)) throw new TokenValidationError('malformed', 'The token payload is not a JSON object');
  // jsonwebtoken accepts a token without exp; an access token must expire.
  if (typeof verified.exp !== 'number') throw new TokenValidationError('malformed', 'The token has no expiry');
  return verified;
}

function failureOf(err: unknown): TokenValidationError {
  // Subclasses first: both extend JsonWebTokenError.
  if (err instanceof jwt.TokenExpiredError) return new TokenValidationError('expired', 'The token has expired');
  if (err instanceof jwt.NotBeforeError) return new TokenValidationError('not_yet_valid', 'The token is not valid yet');
  if (err instanceof jwt.JsonWebTokenError && err.message !== 'invalid signature') {
    return new TokenValidationError('malformed', 'The token could not be verified');
  }
  return new TokenValidationError('invalid_signature', 'The token signature is not valid');
}

function checkAudience(payload: Claims, audiences: readonly string[]): void {
  const aud = Array.isArray(payload.aud) ? (payload.aud as unknown[]) : [payload.aud];
  if (!aud.some((a) => typeof a === 'string' && audiences.includes(a))) {
    throw new TokenValidationError('wrong_audience', 'The token is not for this service');
  }
}

/**
 * App or user, by the token's own `idtyp` claim: a missing `scp` does not make a token app-only. Without
 * `idtyp` (refused where it is required) a delegated scope marks a user token, as before the claim existed.
 */
function kindOf(payload: Claims, requireTokenType: boolean): CallerKind {
  const delegated = payload.scp !== undefined;
  if (payload.idtyp === 'user') return 'user';
  if (payload.idtyp === 'app') {
    if (delegated) throw new TokenValidationError('malformed', 'An app-only token cannot carry delegated scopes');
    return 'app';
  }
  if (payload.idtyp !== undefined)
    throw new TokenValidationError('malformed', 'The token is neither an application nor a user token');
  if (requireTokenType)
    throw new TokenValidationError('malformed', 'The token does not say whether it is an application or a user token');
  return delegated ? 'user' : 'app';
}

function callerOf(payload: Claims, tenantId: string, requireTokenType: boolean): Caller {
  // azp in v2.0 tokens, appid in v1.0 tokens.
  const clientId = [payload.azp, payload.appid].find((c): c is string => typeof c === 'string' && c !== '');
  if (!clientId) throw new TokenValidationError('malformed', 'The token names no client application');
  const roles = Array.isArray(payload.roles) ? payload.roles.filter((r): r is string => typeof r === 'string') : [];
  const kind = kindOf(payload, requireTokenType);
  const scopes = typeof payload.scp === 'string' ? payload.scp.split(' ').filter((s) => s !== '') : [];
  const caller: Caller = { tenantId, clientId: clientId.toLowerCase(), roles, kind, scopes };
  if (typeof payload.oid === 'string') caller.objectId = payload.oid;
  const name = kind === 'user' ? callerName(payload.name) : undefined;
  if (name !== undefined) caller.name = name;
  return caller;
}

export function createTokenValidator(o: TokenValidatorOptions): TokenValidator {
  const authority = o.authority.replace(/\/+$/, '');
  const audiences = [...o.audiences];
  const skew = o.clockSkewSeconds ?? 300;
  const now = o.now ?? Date.now;
  const keys = createSigningKeys({
    jwksUri: `${authority}/common/discovery/v2.0/keys`,
    fetchJwks: o.fetchJwks ?? defaultFetchJwks,
    maxAgeMs: o.jwksCacheMaxAgeMs ?? 24 * 3600_000,
    refreshIntervalMs: o.jwksRefreshIntervalMs ?? 60_000,
    failureBackoffMs: o.jwksFailureBackoffMs ?? 30_000,
    failureReportIntervalMs: o.jwksFailureRetryMs ?? 10_000,
    now,
  });

  const keyOf = async (kid: string): Promise<KeyObject | undefined> => {
    try {
      return await keys.getKey(kid);
    } catch (err) {
      if (err instanceof KeysUnavailableError) {
        throw new TokenValidationError('keys_unavailable', 'The signing keys could not be retrieved', {
          fetchFailed: err.fetchFailed,
        });
      }
      throw err;
    }
  };

  return {
    async validate(authorizationHeader) {
      const token = parseBearer(authorizationHeader);
      const { header, payload } = decodeUnverified(token);
      const kid = keyIdOf(header);
      const tenantId = issuingTenant(payload, authority);
      // Audience and lifetime before any key or signature work: such a token costs nothing to refuse.
      const problem = claimProblem(payload, audiences, skew, now());
      if (problem) throw new TokenValidationError(problem.failure, problem.message);
      // Signature, expiry and audience before registration: a forged token of any tenant is answered
      // alike, whether the tenant is a customer or not, and costs no lookup.
      const key = await keyOf(kid);
      if (!key) throw new TokenValidationError('unknown_key', 'The token was signed with a key Entra does not publish');
      const verified = verifySignature(token, key, skew, now());
      checkAudience(verified, audiences);
      if (o.isRegisteredTenant && !(await o.isRegisteredTenant(tenantId))) {
        throw new TokenValidationError(
          'unregistered_tenant',
          'The token is not from an organization registered with the service',
        );
      }
      return callerOf(verified, tenantId, o.requireTokenType ?? false);
    },
  };
}
