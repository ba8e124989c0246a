/*
 * Client authentication by a signed client assertion at the identity-provider stand-in's token route, as
 * Microsoft Entra ID does it ("certificate credentials" of the Microsoft identity platform; RFC 7523):
 * `client_assertion_type=urn:ietf:params:oauth:client-assertion-type:jwt-bearer` and `client_assertion`, a
 * JWT signed with the private key of a certificate registered on the client. The header names the
 * certificate by its thumbprint (`x5t#S256` with PS256, or the older `x5t` with RS256); aud is the token
 * endpoint, iss and sub the client id; exp, nbf and jti are required. Refusals take Entra's shape
 * (`error`, an AADSTS code in `error_description` and `error_codes`, trace and correlation ids) and never
 * repeat the assertion or any of its values.
 */
import { constants, createHash, randomUUID, verify, X509Certificate, type KeyObject } from 'node:crypto';
import type { CodeFlowAnswer } from './idpCodeFlow';

export const CLIENT_ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
/** Clock difference tolerated on nbf and exp (Entra allows about five minutes). */
const CLOCK_SKEW_SECONDS = 300;
const MAX_ASSERTION_CHARS = 16 * 1024;

/** A client the stand-in knows, with the certificates (PEM) registered on it. */
export interface AssertionClient {
  tenantId: string;
  clientId: string;
  certificates?: string[];
}

/** Whether the token request authenticates with a client assertion (rather than a secret). */
export function usesClientAssertion(form: URLSearchParams): boolean {
  return form.has('client_assertion') || form.has('client_assertion_type');
}

/** Entra's error answer: the AADSTS code leads the description, and is listed in error_codes. */
export function entraError(status: number, error: string, code: number, description: string): CodeFlowAnswer {
  const timestamp = new Date()
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, 'Z');
  const traceId = randomUUID();
  const correlationId = randomUUID();
  return {
    status,
    body: {
      error,
      error_description: `AADSTS${code}: ${description}\r\nTrace ID: ${traceId}\r\nCorrelation ID: ${correlationId}\r\nTimestamp: ${timestamp}`,
      error_codes: [code],
      timestamp,
      trace_id: traceId,
      correlation_id: correlationId,
      error_uri: `https://login.microsoftonline.com/error?code=${code}`,
    },
  };
}

const malformed = (what: string) =>
  entraError(401, 'invalid_client', 50027, `JWT token is invalid or malformed: ${what}.`);

function decodePart(text: string | undefined): Record<string, unknown> | undefined {
  if (!text || !/^[A-Za-z0-9_-]+$/.test(text)) return undefined;
  try {
    const value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as unknown;
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

interface Registered {
  publicKey: KeyObject;
  sha256: string;
  sha1: string;
  validFrom: number;
  validTo: number;
}

function registered(pem: string): Registered | undefined {
  try {
    const cert = new X509Certificate(pem);
    return {
      publicKey: cert.publicKey,
      sha256: createHash('sha256').update(cert.raw).digest('base64url'),
      sha1: createHash('sha1').update(cert.raw).digest('base64url'),
      validFrom: Date.parse(cert.validFrom),
      validTo: Date.parse(cert.validTo),
    };
  } catch {
    return undefined;
  }
}

function signatureValid(alg: string, signingInput: string, signature: string, key: KeyObject): boolean {
  const data = Buffer.from(signingInput);
  const sig = Buffer.from(signature, 'base64url');
  if (alg === 'RS256') return verify('sha256', data, key, sig);
  return verify(
    'sha256',
    data,
    { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST },
    sig,
  );
}

const audiences = (aud: unknown): string[] =>
  typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud.filter((a): a is string => typeof a === 'string') : [];

/**
 * The client the assertion authenticates, or the refusal to answer. `tokenEndpoint` is the URL of this
 * tenant's token route, the audience the assertion must name.
 */
export function authenticateByAssertion<C extends AssertionClient>(o: {
  clients: readonly C[];
  tenantId: string;
  tokenEndpoint: string;
  form: URLSearchParams;
  nowMs?: number;
}): { client: C } | { refusal: CodeFlowAnswer } {
  const refuse = (refusal: CodeFlowAnswer) => ({ refusal });
  const { form } = o;
  const assertion = form.get('client_assertion') ?? '';
  if (form.get('client_assertion_type') !== CLIENT_ASSERTION_TYPE || !assertion)
    return refuse(
      entraError(
        401,
        'invalid_client',
        7000218,
        `The request body must contain the following parameter: 'client_assertion' with 'client_assertion_type' ${CLIENT_ASSERTION_TYPE}, or 'client_secret'.`,
      ),
    );
  if (form.has('client_secret'))
    return refuse(entraError(400, 'invalid_request', 50027, 'Send one client credential: a secret or an assertion.'));
  if (assertion.length > MAX_ASSERTION_CHARS) return refuse(malformed('the assertion is too long'));
  const [headerText, claimsText, signature, extra] = assertion.split('.');
  const header = decodePart(headerText);
  const claims = decodePart(claimsText);
  if (!header || !claims || !signature || extra !== undefined || !/^[A-Za-z0-9_-]+$/.test(signature))
    return refuse(malformed('not a signed JWT'));
  const alg = header.alg;
  if (alg !== 'PS256' && alg !== 'RS256') return refuse(malformed('the algorithm must be PS256 or RS256'));
  const x5tS256 = typeof header['x5t#S256'] === 'string' ? header['x5t#S256'] : undefined;
  const x5t = typeof header.x5t === 'string' ? header.x5t : undefined;
  if (!x5tS256 && !x5t) return refuse(malformed("the header must name the certificate's thumbprint (x5t#S256)"));
  const { iss, sub } = claims;
  if (typeof iss !== 'string' || typeof sub !== 'string') return refuse(malformed('iss and sub are required'));
  if (iss !== sub)
    return refuse(entraError(401, 'invalid_client', 50048, 'Subject mismatches Issuer claim in the client assertion.'));
  const clientId = form.get('client_id');
  if (clientId !== null && clientId.toLowerCase() !== iss.toLowerCase())
    return refuse(malformed("the issuer is not the application named by 'client_id'"));
  const client = o.clients.find(
    (c) => c.clientId.toLowerCase() === iss.toLowerCase() && c.tenantId.toLowerCase() === o.tenantId.toLowerCase(),
  );
  if (!client)
    return refuse(
      entraError(
        400,
        'unauthorized_client',
        700016,
        'Application with the identifier in the assertion was not found in the directory of the tenant.',
      ),
    );
  const nowMs = o.nowMs ?? Date.now();
  const keys = (client.certificates ?? []).map(registered).filter((k): k is Registered => k !== undefined);
  const key = keys.find((k) => (x5tS256 !== undefined ? k.sha256 === x5tS256 : k.sha1 === x5t));
  if (!key || !signatureValid(alg, `${headerText}.${claimsText}`, signature, key.publicKey))
    return refuse(
      entraError(
        401,
        'invalid_client',
        700027,
        'Client assertion failed signature validation: no certificate registered on the application signed it.',
      ),
    );
  if (nowMs < key.validFrom || nowMs > key.validTo)
    return refuse(
      entraError(
        401,
        'invalid_client',
        700027,
        'Client assertion contains an invalid signature: the key used is expired.',
      ),
    );
  const expected = o.tokenEndpoint.toLowerCase();
  if (!audiences(claims.aud).some((a) => a.toLowerCase() === expected))
    return refuse(malformed('unexpected audience: it must be the token endpoint'));
  const { exp, nbf, jti } = claims;
  if (typeof exp !== 'number' || typeof nbf !== 'number') return refuse(malformed('exp and nbf are required'));
  if (typeof jti !== 'string' || jti === '') return refuse(malformed('jti is required'));
  const now = nowMs / 1000;
  if (now > exp + CLOCK_SKEW_SECONDS || now < nbf - CLOCK_SKEW_SECONDS)
    return refuse(entraError(401, 'invalid_client', 700024, 'Client assertion is not within its valid time range.'));
  return { client };
}
