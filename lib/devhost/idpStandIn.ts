/**
 * Identity-provider stand-in with the Entra ID routes the service and its callers use:
 * client-credential tokens (form-encoded, client secret), JWKS and OpenID configuration per
 * tenant. Tokens are RS256 v2.0 access tokens with Entra's claims.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHash, generateKeyPairSync, randomBytes, randomUUID, timingSafeEqual, type JsonWebKey } from 'node:crypto';
import jwt from 'jsonwebtoken';

export interface IdpClient {
  tenantId: string;
  clientId: string;
  secret: string;
  roles: string[];
}

export interface IdpStandIn {
  url: string;
  issuer(tenantId: string): string;
  jwksUri(tenantId: string): string;
  mintAppToken(o: { tenantId: string; clientId: string; audience: string; roles?: string[]; expiresInSeconds?: number; notBeforeOffsetSeconds?: number }): string;
  mintUserToken(o: { tenantId: string; clientId: string; audience: string; scp: string; roles?: string[]; oid?: string; upn?: string }): string;
  signRaw(claims: Record<string, unknown>, header?: { kid?: string }): string;
  publicKeyPem: string;
  close(): Promise<void>;
}

const TENANT_PATH = /^\/([^/]+)\/(oauth2\/v2\.0\/token|discovery\/v2\.0\/keys|v2\.0\/\.well-known\/openid-configuration)$/;

function guidFrom(...parts: string[]): string {
  const h = createHash('sha256').update(parts.join('|')).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

function sameSecret(a: string, b: string): boolean {
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}

function send(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= 64 * 1024) chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export async function startIdpStandIn(opts: { port: number; host?: string; clients: IdpClient[] }): Promise<IdpStandIn> {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const kid = randomBytes(12).toString('base64url');
  const jwk = publicKey.export({ format: 'jwk' }) as JsonWebKey;
  const publicKeyPem = publicKey.export({ format: 'pem', type: 'spki' }).toString();
  const host = opts.host ?? '127.0.0.1';
  let url = '';

  const issuer = (tenantId: string) => `${url}/${tenantId}/v2.0`;
  const sign = (claims: Record<string, unknown>, headerKid = kid) => jwt.sign(claims, privateKey, { algorithm: 'RS256', keyid: headerKid, noTimestamp: true });

  const appClaims = (o: { tenantId: string; clientId: string; audience: string; roles?: string[]; expiresInSeconds?: number; notBeforeOffsetSeconds?: number }) => {
    const now = Math.floor(Date.now() / 1000);
    const oid = guidFrom(o.tenantId, o.clientId);
    return {
      aud: o.audience,
      iss: issuer(o.tenantId),
      iat: now,
      nbf: now + (o.notBeforeOffsetSeconds ?? 0),
      exp: now + (o.expiresInSeconds ?? 3600),
      tid: o.tenantId,
      azp: o.clientId,
      appid: o.clientId,
      azpacr: '1',
      oid,
      sub: oid,
      idtyp: 'app',
      ver: '2.0',
      uti: randomBytes(16).toString('base64url'),
      jti: randomUUID(),
      ...(o.roles && o.roles.length > 0 ? { roles: o.roles } : {}),
    };
  };

  const token = async (tenantId: string, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const form = new URLSearchParams(await readBody(req));
    if (form.get('grant_type') !== 'client_credentials') return send(res, 400, { error: 'unsupported_grant_type', error_description: 'Only client_credentials is supported' });
    const scope = form.get('scope') ?? '';
    if (!scope.endsWith('/.default') || scope.length <= '/.default'.length) {
      return send(res, 400, { error: 'invalid_scope', error_description: 'The scope must be <resource>/.default' });
    }
    const clientId = form.get('client_id') ?? '';
    const secret = form.get('client_secret') ?? '';
    const client = opts.clients.find((c) => c.clientId === clientId && c.tenantId.toLowerCase() === tenantId.toLowerCase());
    // Compare even when the client is unknown, so timing does not reveal which client ids exist.
    const secretOk = sameSecret(secret, client?.secret ?? randomUUID());
    if (!client || !secretOk) return send(res, 401, { error: 'invalid_client', error_description: 'Client authentication failed: unknown client or invalid client secret' });
    const audience = scope.slice(0, -'/.default'.length);
    const access = sign(appClaims({ tenantId: client.tenantId, clientId, audience, roles: client.roles }));
    send(res, 200, { token_type: 'Bearer', expires_in: 3599, ext_expires_in: 3599, access_token: access });
  };

  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const m = TENANT_PATH.exec(path);
    if (!m) return send(res, 404, { error: 'not_found' });
    const tenantId = decodeURIComponent(m[1] ?? '');
    const route = m[2];
    if (route === 'oauth2/v2.0/token' && req.method === 'POST') {
      token(tenantId, req, res).catch(() => send(res, 500, { error: 'server_error' }));
      return;
    }
    if (req.method !== 'GET') return send(res, 405, { error: 'method_not_allowed' });
    if (route === 'discovery/v2.0/keys') return send(res, 200, { keys: [{ ...jwk, kid, use: 'sig', alg: 'RS256' }] });
    return send(res, 200, {
      issuer: issuer(tenantId),
      jwks_uri: `${url}/${tenantId}/discovery/v2.0/keys`,
      token_endpoint: `${url}/${tenantId}/oauth2/v2.0/token`,
      id_token_signing_alg_values_supported: ['RS256'],
      response_types_supported: ['token'],
      subject_types_supported: ['pairwise'],
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, host, resolve);
  });
  url = `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${(server.address() as AddressInfo).port}`;

  return {
    url,
    issuer,
    jwksUri: (tenantId) => `${url}/${tenantId}/discovery/v2.0/keys`,
    mintAppToken: (o) => sign(appClaims(o)),
    mintUserToken: (o) => {
      const base = appClaims({ tenantId: o.tenantId, clientId: o.clientId, audience: o.audience, roles: o.roles });
      const oid = o.oid ?? randomUUID();
      return sign({ ...base, idtyp: 'user', scp: o.scp, oid, sub: oid, upn: o.upn ?? 'user@example.com', preferred_username: o.upn ?? 'user@example.com' });
    },
    signRaw: (claims, header) => sign(claims, header?.kid ?? kid),
    publicKeyPem,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
