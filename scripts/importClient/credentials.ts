/*
 * The import client's tokens: client-credential tokens from Microsoft Entra ID (or the local stand-in),
 * with a client secret or, as the spec recommends, a certificate. A token is cached and renewed ahead of
 * its `expires_in`, so an upload that outlasts one token never sends an expired one.
 *
 * The certificate credential signs its own client assertion (RFC 7523 jwt-bearer, Microsoft's "certificate
 * credentials": PS256, `x5t#S256`), as MSAL's ClientCertificateCredential does, so the same code reaches
 * Entra and the stand-in of the local stack over plain http, without instance discovery.
 */
import {
  createHash,
  createPrivateKey,
  randomUUID,
  sign,
  constants,
  X509Certificate,
  type KeyObject,
} from 'node:crypto';
import fs from 'node:fs';

export const CLIENT_ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
/** How long a signed client assertion is valid (Microsoft: short, at most 5–10 minutes after nbf). */
export const ASSERTION_LIFETIME_SECONDS = 300;
/** A token is renewed once less than this much of its life is left (or half its life, for short-lived tokens). */
export const RENEW_BEFORE_EXPIRY_MS = 5 * 60_000;

/** A token is not sent in its last seconds (clocks differ a little). */
const EXPIRY_MARGIN_MS = 10_000;
/** After a failed renewal, the cached token is used this long before the next try. */
const RENEW_RETRY_MS = 30_000;

/** The token request failed; the message carries the HTTP status and Entra's AADSTS code, never a credential. */
export class TokenRequestFailed extends Error {
  constructor(
    readonly status: number,
    readonly aadsts?: string,
  ) {
    super(`token request failed (HTTP ${status}${aadsts ? `, ${aadsts}` : ''})`);
    this.name = 'TokenRequestFailed';
  }
}

/** A certificate file that cannot be used (unreadable, no key, no certificate, or they do not belong together). */
export class CertificateUnusable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CertificateUnusable';
  }
}

/** What a token endpoint answered. */
export interface IssuedToken {
  accessToken: string;
  expiresInSeconds: number;
}

/** The form fields that authenticate the client (a secret, or a fresh client assertion). */
export type ClientAuthentication = (tokenEndpoint: string) => Record<string, string>;

export function tokenEndpoint(authority: string, tenant: string): string {
  return `${authority.replace(/\/+$/, '')}/${encodeURIComponent(tenant)}/oauth2/v2.0/token`;
}

export function secretAuthentication(secret: string): ClientAuthentication {
  return () => ({ client_secret: secret });
}

/** A private key and its certificate from one PEM file (the key may be encrypted with a passphrase). */
export interface ClientCertificate {
  privateKey: KeyObject;
  /** Base64url SHA-256 thumbprint of the certificate's DER encoding (the header `x5t#S256`). */
  thumbprintSha256: string;
}

export function readClientCertificate(pem: string, passphrase?: string): ClientCertificate {
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(passphrase === undefined ? pem : { key: pem, passphrase });
  } catch {
    throw new CertificateUnusable(
      'The certificate file has no usable private key (a PEM PRIVATE KEY block; an encrypted one needs its password)',
    );
  }
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(pem);
  } catch {
    throw new CertificateUnusable('The certificate file has no certificate (a PEM CERTIFICATE block)');
  }
  if (!cert.checkPrivateKey(privateKey))
    throw new CertificateUnusable('The private key in the certificate file does not belong to its certificate');
  return { privateKey, thumbprintSha256: createHash('sha256').update(cert.raw).digest('base64url') };
}

export function readClientCertificateFile(file: string, passphrase?: string): ClientCertificate {
  let pem: string;
  try {
    pem = fs.readFileSync(file, 'utf8');
  } catch {
    throw new CertificateUnusable('The certificate file cannot be read');
  }
  return readClientCertificate(pem, passphrase);
}

const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** A client assertion as Microsoft's identity platform expects it: PS256, x5t#S256, aud = the token endpoint. */
export function signClientAssertion(
  certificate: ClientCertificate,
  o: { clientId: string; tokenEndpoint: string; nowMs: number },
): string {
  const now = Math.floor(o.nowMs / 1000);
  const header = { alg: 'PS256', typ: 'JWT', 'x5t#S256': certificate.thumbprintSha256 };
  const claims = {
    aud: o.tokenEndpoint,
    iss: o.clientId,
    sub: o.clientId,
    jti: randomUUID(),
    nbf: now,
    iat: now,
    exp: now + ASSERTION_LIFETIME_SECONDS,
  };
  const signingInput = `${part(header)}.${part(claims)}`;
  const signature = sign('sha256', Buffer.from(signingInput), {
    key: certificate.privateKey,
    padding: constants.RSA_PKCS1_PSS_PADDING,
    saltLength: constants.RSA_PSS_SALTLEN_DIGEST,
  });
  return `${signingInput}.${signature.toString('base64url')}`;
}

export function certificateAuthentication(
  certificate: ClientCertificate,
  clientId: string,
  now: () => number = Date.now,
): ClientAuthentication {
  return (endpoint) => ({
    client_assertion_type: CLIENT_ASSERTION_TYPE,
    client_assertion: signClientAssertion(certificate, { clientId, tokenEndpoint: endpoint, nowMs: now() }),
  });
}

/** One client-credentials token request (every value form-encoded: a secret may hold + or &). */
export async function requestToken(
  o: { endpoint: string; clientId: string; scope: string; authenticate: ClientAuthentication },
  fetchImpl: typeof fetch = fetch,
): Promise<IssuedToken> {
  const res = await fetchImpl(o.endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: o.clientId,
      scope: o.scope,
      ...o.authenticate(o.endpoint),
    }).toString(),
  });
  const body = (await res.json().catch(() => ({}))) as {
    access_token?: unknown;
    expires_in?: unknown;
    error_codes?: unknown;
  };
  if (!res.ok || typeof body.access_token !== 'string') {
    const code = Array.isArray(body.error_codes) && typeof body.error_codes[0] === 'number' ? body.error_codes[0] : 0;
    throw new TokenRequestFailed(res.status, code ? `AADSTS${code}` : undefined);
  }
  const expiresIn = Number(body.expires_in);
  return {
    accessToken: body.access_token,
    expiresInSeconds: Number.isFinite(expiresIn) && expiresIn > 0 ? expiresIn : 3600,
  };
}

/**
 * Caches one token and renews it ahead of its expiry: once less than RENEW_BEFORE_EXPIRY_MS (or half the
 * token's lifetime) is left. Callers at the same moment share one request. When a renewal fails while the
 * cached token is still valid, that token is used and the renewal is tried again at the next call.
 */
export class CachedToken {
  private cached?: { accessToken: string; renewAt: number; expiresAt: number };
  private pending?: Promise<string>;
  /** Token requests made so far. */
  requests = 0;

  constructor(
    private readonly issue: () => Promise<IssuedToken>,
    private readonly now: () => number = Date.now,
  ) {}

  async token(): Promise<string> {
    const now = this.now();
    const cached = this.cached;
    if (cached && now < cached.renewAt) return cached.accessToken;
    try {
      return await this.renew();
    } catch (err) {
      // A margin of a few seconds, so that a token is not sent as it expires.
      const later = this.now();
      if (!cached || later >= cached.expiresAt - EXPIRY_MARGIN_MS) throw err;
      // The next renewal is tried a little later, not at every call.
      cached.renewAt = Math.min(later + RENEW_RETRY_MS, cached.expiresAt - EXPIRY_MARGIN_MS);
      this.cached ??= cached;
      return cached.accessToken;
    }
  }

  /** Forgets the cached token (the service refused it): the next call asks for a new one. */
  invalidate(): void {
    this.cached = undefined;
  }

  private renew(): Promise<string> {
    this.pending ??= (async () => {
      try {
        this.requests++;
        const issued = await this.issue();
        const now = this.now();
        const lifetimeMs = issued.expiresInSeconds * 1000;
        this.cached = {
          accessToken: issued.accessToken,
          renewAt: now + lifetimeMs - Math.min(RENEW_BEFORE_EXPIRY_MS, lifetimeMs / 2),
          expiresAt: now + lifetimeMs,
        };
        return issued.accessToken;
      } finally {
        this.pending = undefined;
      }
    })();
    return this.pending;
  }
}

/** The client's credential: a cached token from the token endpoint, by secret or by certificate. */
export function clientCredential(o: {
  authority: string;
  tenant: string;
  clientId: string;
  scope: string;
  authenticate: ClientAuthentication;
  now?: () => number;
}): CachedToken {
  const endpoint = tokenEndpoint(o.authority, o.tenant);
  return new CachedToken(
    () => requestToken({ endpoint, clientId: o.clientId, scope: o.scope, authenticate: o.authenticate }),
    o.now,
  );
}
