/**
 * Identity-provider stand-in with the Entra ID routes the service and its callers use:
 * client-credential tokens (form-encoded, client secret), JWKS and OpenID configuration per
 * tenant. Tokens are RS256 v2.0 access tokens with Entra's claims, signed with one RSA key
 * generated per instance. As Entra does, it publishes one key set for every tenant: the common
 * key set (`/common/discovery/v2.0/keys`, what the service reads) and each tenant's route answer alike.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  randomBytes,
  randomUUID,
  sign as cryptoSign,
  timingSafeEqual,
  type KeyObject,
} from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createCodeFlow, type CodeFlowAnswer, type IdpUser, type SpaRegistration } from './idpCodeFlow';
import { authenticateByAssertion, usesClientAssertion } from './idpClientAssertion';

export interface IdpClient {
  tenantId: string;
  clientId: string;
  /** Absent for a client that authenticates by certificate only. */
  secret?: string;
  roles: string[];
  /** Certificates (PEM) registered on the client: it may authenticate with a client assertion signed by one. */
  certificates?: string[];
}

export interface MintAppTokenOptions {
  tenantId: string;
  clientId: string;
  audience: string;
  /** Put into `roles` as given (the registered client's roles are not looked up); omitted when empty. */
  roles?: string[];
  /** Negative for an expired token. Default 3600. */
  expiresInSeconds?: number;
  /** Positive for a token that is not valid yet. Default 0. */
  notBeforeOffsetSeconds?: number;
}

export interface MintUserTokenOptions {
  tenantId: string;
  clientId: string;
  audience: string;
  scp: string;
  roles?: string[];
  /** Default: a GUID derived from the tenant and the UPN, so the same user keeps the same oid. */
  oid?: string;
  /** Default user@example.com. */
  upn?: string;
  /** The `name` claim; default the UPN's part before `@`. */
  name?: string;
}

export interface IdpStandIn {
  /** Base URL, e.g. http://127.0.0.1:54321 (the real port when started on port 0). */
  url: string;
  issuer(tenantId: string): string;
  jwksUri(tenantId: string): string;
  /** The key set of every tenant, `{url}/common/discovery/v2.0/keys`. */
  commonJwksUri: string;
  mintAppToken(o: MintAppTokenOptions): string;
  mintUserToken(o: MintUserTokenOptions): string;
  /** RS256 with the stand-in key and exactly these claims (for negative tests). */
  signRaw(claims: Record<string, unknown>, header?: { kid?: string }): string;
  /** SPKI PEM of the signing key, e.g. to forge an HS256 token "signed" with the public key. */
  publicKeyPem: string;
  /** Registers one more client (e.g. the service's Graph client in another customer tenant). */
  addClient(client: IdpClient): void;
  /** How many JWKS requests the stand-in has answered for a tenant (to prove a fetch did or did not happen). */
  jwksRequests(tenantId: string): number;
  /** Makes the tenant's JWKS route answer 503 (an outage of the key endpoint) until called with false. */
  failJwks(tenantId: string, failing: boolean): void;
  /** Token requests of the client in the tenant are refused as Entra refuses an application that is not consented there (AADSTS700016). */
  withdrawConsent(tenantId: string, clientId: string): void;
  grantConsent(tenantId: string, clientId: string): void;
  /** Registers a single-page application (public client) for the authorization-code flow with PKCE. */
  registerSpa(spa: SpaRegistration): void;
  close(): Promise<void>;
}

type Answer = CodeFlowAnswer;

const TOKEN_LIFETIME_SECONDS = 3600;
const DEFAULT_SCOPE_SUFFIX = '/.default';
const MAX_FORM_BYTES = 64 * 1024;
const FORM_CONTENT_TYPE = 'application/x-www-form-urlencoded';
const TENANT_PATH =
  /^\/([^/]+)\/(oauth2\/v2\.0\/token|oauth2\/v2\.0\/authorize|oauth2\/v2\.0\/logout|discovery\/v2\.0\/keys|v2\.0\/\.well-known\/openid-configuration)$/;
const ROUTE_METHODS: Record<string, string[]> = {
  'oauth2/v2.0/token': ['POST', 'OPTIONS'],
  'oauth2/v2.0/authorize': ['GET', 'POST'],
  'oauth2/v2.0/logout': ['GET'],
  'discovery/v2.0/keys': ['GET'],
  'v2.0/.well-known/openid-configuration': ['GET'],
};

class BodyTooLargeError extends Error {}

/** A UUID-shaped, stable identifier derived from the parts (version and variant nibbles set). */
export function guidFrom(...parts: string[]): string {
  const h = createHash('sha256').update(parts.join('|')).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

function sameSecret(a: string, b: string): boolean {
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}

const oauthError = (status: number, error: string, description: string): Answer => ({
  status,
  body: { error, error_description: description },
});

function send(res: http.ServerResponse, answer: Answer): void {
  const text = answer.html ?? (answer.body === undefined ? '' : JSON.stringify(answer.body));
  res.writeHead(answer.status, {
    'content-type': answer.html !== undefined ? 'text/html; charset=utf-8' : 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    'content-length': Buffer.byteLength(text),
    ...answer.headers,
  });
  res.end(text);
}

function readBody(req: http.IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= limit) chunks.push(c);
    });
    req.on('end', () =>
      size > limit ? reject(new BodyTooLargeError()) : resolve(Buffer.concat(chunks).toString('utf8')),
    );
    req.on('error', reject);
  });
}

/** The URL clients should use for a listening address (wildcards become loopback, IPv6 gets brackets). */
export function listenUrl(host: string, port: number): string {
  const h = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${h.includes(':') ? `[${h}]` : h}:${port}`;
}

export async function listen(server: http.Server, port: number, host: string): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return listenUrl(host, (server.address() as AddressInfo).port);
}

export function closeServer(server: http.Server): Promise<void> {
  return new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}

function parseTenantPath(rawUrl: string | undefined): { tenantId: string; route: string } | undefined {
  const m = TENANT_PATH.exec(new URL(rawUrl ?? '/', 'http://x').pathname);
  if (!m) return undefined;
  try {
    return { tenantId: decodeURIComponent(m[1] ?? ''), route: m[2] ?? '' };
  } catch {
    return undefined;
  }
}

/**
 * The signing key: kept in keyFile when one is given (as Entra keeps its keys, so tokens issued before a
 * restart of the local stack stay valid after it), otherwise new for each start. The kid is the key's
 * RFC 7638 thumbprint, so it is the same whenever the key is.
 */
function signingKey(keyFile: string | undefined): { privateKey: KeyObject; publicKey: KeyObject; kid: string } {
  let privateKey: KeyObject | undefined;
  if (keyFile && fs.existsSync(keyFile)) privateKey = createPrivateKey(fs.readFileSync(keyFile, 'utf8'));
  if (!privateKey) {
    privateKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    if (keyFile) {
      fs.mkdirSync(path.dirname(keyFile), { recursive: true });
      fs.writeFileSync(keyFile, privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(), { mode: 0o600 });
    }
  }
  const publicKey = createPublicKey(privateKey);
  const { e, kty, n } = publicKey.export({ format: 'jwk' });
  const kid = createHash('sha256').update(JSON.stringify({ e, kty, n })).digest('base64url');
  return { privateKey, publicKey, kid };
}

export async function startIdpStandIn(opts: {
  port: number;
  host?: string;
  clients: IdpClient[];
  keyFile?: string;
  /** People who can sign in with the authorization-code flow. */
  users?: IdpUser[];
}): Promise<IdpStandIn> {
  const { privateKey, publicKey, kid } = signingKey(opts.keyFile);
  const publicKeyPem = publicKey.export({ format: 'pem', type: 'spki' }).toString();
  const clients = [...opts.clients];
  // Set once the server listens; every use below runs after that.
  let url = '';
  const issuer = (tenantId: string) => `${url}/${tenantId}/v2.0`;
  const jwksUri = (tenantId: string) => `${url}/${tenantId}/discovery/v2.0/keys`;
  const tokens = tokenMinter(privateKey, kid, issuer);
  const codeFlow = createCodeFlow({
    users: opts.users ?? [],
    tokens: {
      user: (o) =>
        tokens.sign({ ...tokens.userClaims({ ...o, scp: o.scp, roles: o.roles, upn: o.upn }), name: o.name }, kid),
      idToken: (o) => tokens.sign(tokens.idClaims(o), kid),
      oidOf: (tenantId, upn) => guidFrom(tenantId.toLowerCase(), upn.toLowerCase()),
    },
  });

  const withdrawn = new Set<string>();
  const consentKey = (tenantId: string, clientId: string) => `${tenantId.toLowerCase()}|${clientId.toLowerCase()}`;

  const handleToken = async (tenantId: string, req: http.IncomingMessage): Promise<Answer> => {
    if (!(req.headers['content-type'] ?? '').toLowerCase().startsWith(FORM_CONTENT_TYPE)) {
      return oauthError(400, 'invalid_request', `The request body must be ${FORM_CONTENT_TYPE}`);
    }
    const form = new URLSearchParams(await readBody(req, MAX_FORM_BYTES));
    const grant = form.get('grant_type');
    if (grant === 'authorization_code' || grant === 'refresh_token') return codeFlow.redeem(tenantId, form);
    if (grant !== 'client_credentials')
      return oauthError(
        400,
        'unsupported_grant_type',
        'Supported grants: client_credentials, authorization_code, refresh_token',
      );
    let client: IdpClient | undefined;
    if (usesClientAssertion(form)) {
      const tokenEndpoint = `${url}/${tenantId}/oauth2/v2.0/token`;
      const checked = authenticateByAssertion({ clients, tenantId, tokenEndpoint, form });
      if ('refusal' in checked) return checked.refusal;
      client = checked.client;
    } else {
      client = authenticateClient(clients, tenantId, form.get('client_id') ?? '', form.get('client_secret') ?? '');
      if (!client)
        return oauthError(
          401,
          'invalid_client',
          'Client authentication failed: unknown client or invalid client secret',
        );
    }
    if (withdrawn.has(consentKey(client.tenantId, client.clientId))) {
      return oauthError(
        400,
        'unauthorized_client',
        'AADSTS700016: The application was not found in the directory of the tenant; an administrator must consent to it',
      );
    }
    const scope = form.get('scope') ?? '';
    if (!scope.endsWith(DEFAULT_SCOPE_SUFFIX) || scope.length <= DEFAULT_SCOPE_SUFFIX.length) {
      return oauthError(400, 'invalid_scope', 'The scope must be <resource>/.default');
    }
    const audience = scope.slice(0, -DEFAULT_SCOPE_SUFFIX.length);
    const accessToken = tokens.app({
      tenantId: client.tenantId,
      clientId: client.clientId,
      audience,
      roles: client.roles,
    });
    return {
      status: 200,
      body: {
        token_type: 'Bearer',
        expires_in: TOKEN_LIFETIME_SECONDS - 1,
        ext_expires_in: TOKEN_LIFETIME_SECONDS - 1,
        access_token: accessToken,
      },
    };
  };

  const jwksCount = new Map<string, number>();
  const failingJwks = new Set<string>();
  const handleGet = (tenantId: string, route: string): Answer => {
    if (route === 'discovery/v2.0/keys') {
      const tenant = tenantId.toLowerCase();
      jwksCount.set(tenant, (jwksCount.get(tenant) ?? 0) + 1);
      if (failingJwks.has(tenant))
        return {
          status: 503,
          body: { error: 'temporarily_unavailable', error_description: 'The key endpoint is unavailable' },
        };
      return { status: 200, body: { keys: [publicJwk(publicKey, kid)] } };
    }
    return {
      status: 200,
      body: {
        issuer: issuer(tenantId),
        jwks_uri: jwksUri(tenantId),
        token_endpoint: `${url}/${tenantId}/oauth2/v2.0/token`,
        authorization_endpoint: `${url}/${tenantId}/oauth2/v2.0/authorize`,
        end_session_endpoint: `${url}/${tenantId}/oauth2/v2.0/logout`,
        id_token_signing_alg_values_supported: ['RS256'],
        response_types_supported: ['code', 'id_token', 'code id_token', 'token'],
        response_modes_supported: ['query', 'fragment', 'form_post'],
        code_challenge_methods_supported: ['S256'],
        scopes_supported: ['openid', 'profile', 'email', 'offline_access'],
        subject_types_supported: ['pairwise'],
        grant_types_supported: ['client_credentials', 'authorization_code', 'refresh_token'],
      },
    };
  };

  const handle = async (req: http.IncomingMessage): Promise<Answer> => {
    const target = parseTenantPath(req.url);
    if (!target || !ROUTE_METHODS[target.route]?.includes(req.method ?? ''))
      return { status: 404, body: { error: 'not_found', error_description: 'No such endpoint' } };
    const query = new URL(req.url ?? '/', 'http://x').searchParams;
    if (target.route === 'oauth2/v2.0/authorize') {
      if (req.method === 'GET') return codeFlow.signInPage(target.tenantId, query);
      return codeFlow.signIn(target.tenantId, new URLSearchParams(await readBody(req, MAX_FORM_BYTES)));
    }
    if (target.route === 'oauth2/v2.0/logout') return codeFlow.endSession(query);
    if (target.route === 'oauth2/v2.0/token') {
      const cors = codeFlow.cors(req.headers.origin);
      if (req.method === 'OPTIONS') return { status: 204, body: undefined, headers: cors };
      const answer = await handleToken(target.tenantId, req);
      return { ...answer, headers: { ...answer.headers, ...cors } };
    }
    return handleGet(target.tenantId, target.route);
  };

  const server = http.createServer((req, res) => {
    handle(req)
      .then((answer) => send(res, answer))
      .catch((err: unknown) =>
        send(
          res,
          err instanceof BodyTooLargeError
            ? oauthError(413, 'invalid_request', 'The request body is too large')
            : oauthError(500, 'server_error', 'Internal error'),
        ),
      );
  });
  url = await listen(server, opts.port, opts.host ?? '127.0.0.1');

  return {
    url,
    issuer,
    jwksUri,
    mintAppToken: (o) => tokens.app(o),
    mintUserToken: (o) => tokens.user(o),
    signRaw: (claims, header) => tokens.sign(claims, header?.kid ?? kid),
    publicKeyPem,
    addClient: (client) => void clients.push(client),
    get commonJwksUri() {
      return jwksUri('common');
    },
    jwksRequests: (tenantId) => jwksCount.get(tenantId.toLowerCase()) ?? 0,
    failJwks: (tenantId, failing) =>
      void (failing ? failingJwks.add(tenantId.toLowerCase()) : failingJwks.delete(tenantId.toLowerCase())),
    withdrawConsent: (tenantId, clientId) => withdrawn.add(consentKey(tenantId, clientId)),
    grantConsent: (tenantId, clientId) => withdrawn.delete(consentKey(tenantId, clientId)),
    registerSpa: (spa) => codeFlow.registerSpa(spa),
    close: () => closeServer(server),
  };
}

/** Finds the client registered in this tenant and checks its secret; the secret is compared even for unknown clients. */
function authenticateClient(
  clients: IdpClient[],
  tenantId: string,
  clientId: string,
  secret: string,
): IdpClient | undefined {
  const client = clients.find(
    (c) => c.clientId.toLowerCase() === clientId.toLowerCase() && c.tenantId.toLowerCase() === tenantId.toLowerCase(),
  );
  const secretOk = sameSecret(secret, client?.secret ?? randomUUID());
  return client && secretOk ? client : undefined;
}

function publicJwk(publicKey: KeyObject, kid: string): Record<string, unknown> {
  const { kty, n, e } = publicKey.export({ format: 'jwk' });
  return { kty, use: 'sig', kid, n, e, alg: 'RS256' };
}

/**
 * Signs exactly the given claims. (jsonwebtoken's sign adds or, with noTimestamp, drops `iat`,
 * and validates registered claims, which negative tests must be able to break.)
 */
function signRs256(claims: Record<string, unknown>, privateKey: KeyObject, kid: string): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const signingInput = `${part({ alg: 'RS256', typ: 'JWT', kid })}.${part(claims)}`;
  return `${signingInput}.${cryptoSign('sha256', Buffer.from(signingInput), privateKey).toString('base64url')}`;
}

function tokenMinter(privateKey: KeyObject, kid: string, issuer: (tenantId: string) => string) {
  const sign = (claims: Record<string, unknown>, headerKid: string) => signRs256(claims, privateKey, headerKid);

  const appClaims = (o: MintAppTokenOptions): Record<string, unknown> => {
    const now = Math.floor(Date.now() / 1000);
    const oid = guidFrom(o.tenantId.toLowerCase(), o.clientId.toLowerCase());
    return {
      aud: o.audience,
      iss: issuer(o.tenantId),
      iat: now,
      nbf: now + (o.notBeforeOffsetSeconds ?? 0),
      exp: now + (o.expiresInSeconds ?? TOKEN_LIFETIME_SECONDS),
      tid: o.tenantId,
      azp: o.clientId,
      appid: o.clientId,
      azpacr: '1',
      oid,
      sub: oid,
      // Entra puts idtyp in every app-only token, and idtyp "user" in user tokens (userClaims) of an API that asks
      // for the optional claim with include_user_token, as infra/scripts/create-entra-app.sh configures it.
      idtyp: 'app',
      ver: '2.0',
      uti: randomBytes(16).toString('base64url'),
      jti: randomUUID(),
      ...(o.roles && o.roles.length > 0 ? { roles: o.roles } : {}),
    };
  };

  const idClaims = (o: { tenantId: string; clientId: string; upn: string; name: string; nonce?: string }) => {
    const now = Math.floor(Date.now() / 1000);
    const oid = guidFrom(o.tenantId.toLowerCase(), o.upn.toLowerCase());
    return {
      aud: o.clientId,
      iss: issuer(o.tenantId),
      iat: now,
      nbf: now,
      exp: now + TOKEN_LIFETIME_SECONDS,
      tid: o.tenantId,
      oid,
      sub: guidFrom('sub', oid, o.clientId.toLowerCase()),
      name: o.name,
      preferred_username: o.upn,
      ver: '2.0',
      ...(o.nonce ? { nonce: o.nonce } : {}),
    };
  };

  const userClaims = (o: MintUserTokenOptions): Record<string, unknown> => {
    const upn = o.upn ?? 'user@example.com';
    const oid = o.oid ?? guidFrom(o.tenantId.toLowerCase(), upn.toLowerCase());
    // Entra's sub is pairwise: one value per user and application.
    const sub = guidFrom('sub', oid, o.clientId.toLowerCase());
    const base = appClaims({ tenantId: o.tenantId, clientId: o.clientId, audience: o.audience, roles: o.roles });
    // Entra's access tokens carry the user's display name (`name`) with the profile scope the console asks for.
    const name = o.name ?? upn.split('@')[0];
    return { ...base, idtyp: 'user', scp: o.scp, oid, sub, upn, preferred_username: upn, name };
  };

  return {
    sign,
    userClaims,
    idClaims,
    app: (o: MintAppTokenOptions) => sign(appClaims(o), kid),
    user: (o: MintUserTokenOptions) => sign(userClaims(o), kid),
  };
}
