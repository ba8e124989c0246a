/**
 * The local identity-provider (Entra ID) and directory (Microsoft Graph) stand-ins, over real HTTP.
 */
import { createPublicKey } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import jwt from 'jsonwebtoken';
import { startIdpStandIn, type IdpStandIn } from '../../../devhost/idpStandIn';
import {
  startDirectoryStandIn,
  type DirectoryStandIn,
  type DirectoryUserRecord,
} from '../../../devhost/directoryStandIn';

const TENANT_A = 'a0a0a0a0-1111-4111-8111-000000000001';
const TENANT_B = 'b0b0b0b0-2222-4222-8222-000000000002';
const SERVICE_AUDIENCE = 'api://business-identity-service';
const GRAPH = 'https://graph.microsoft.com';

const ADMIN = {
  tenantId: TENANT_A,
  clientId: 'c0000000-0000-4000-8000-000000000001',
  secret: 'admin-secret-value',
  roles: ['Admin', 'Reader'],
};
const TRICKY = {
  tenantId: TENANT_A,
  clientId: 'c0000000-0000-4000-8000-000000000002',
  secret: 'a+b&c=d %x',
  roles: [],
};
const GRAPH_A = {
  tenantId: TENANT_A,
  clientId: 'c0000000-0000-4000-8000-000000000003',
  secret: 'graph-a-secret',
  roles: [],
};
const GRAPH_B = {
  tenantId: TENANT_B,
  clientId: 'c0000000-0000-4000-8000-000000000004',
  secret: 'graph-b-secret',
  roles: [],
};

const GUEST_UPN = "o'brien+x_partner.example#EXT#@a.example.com";

interface Reply<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

async function request<T = Record<string, unknown>>(url: string, init: RequestInit = {}): Promise<Reply<T>> {
  const res = await fetch(url, init);
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: (text ? JSON.parse(text) : undefined) as T, text };
}

let idp: IdpStandIn;
let directory: DirectoryStandIn;

function tokenRequest(tenantId: string, form: Record<string, string>): Promise<Reply> {
  return request(`${idp.url}/${tenantId}/oauth2/v2.0/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
}

async function tokenFor(
  client: { tenantId: string; clientId: string; secret: string },
  scope: string,
): Promise<string> {
  const res = await tokenRequest(client.tenantId, {
    grant_type: 'client_credentials',
    client_id: client.clientId,
    client_secret: client.secret,
    scope,
  });
  expect(res.status).toBe(200);
  return res.body.access_token as string;
}

type UsersBody = { value: DirectoryUserRecord[] };
type GraphErrorBody = { error: { code: string; message: string } };

function graph<T = Record<string, unknown>>(
  path: string,
  token: string | undefined,
  init: { method?: string; json?: unknown } = {},
): Promise<Reply<T>> {
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (init.json !== undefined) headers['content-type'] = 'application/json';
  return request<T>(`${directory.url}/v1.0${path}`, {
    method: init.method ?? 'GET',
    headers,
    body: init.json === undefined ? undefined : JSON.stringify(init.json),
  });
}

const filterPath = (filter: string) => `/users?$filter=${encodeURIComponent(filter)}`;
const odata = (s: string) => `'${s.replace(/'/g, "''")}'`;
const upnsOf = (r: Reply<UsersBody>) => r.body.value.map((u) => u.userPrincipalName).sort();

beforeAll(async () => {
  idp = await startIdpStandIn({ port: 0, clients: [ADMIN, TRICKY, GRAPH_A, GRAPH_B] });
  directory = await startDirectoryStandIn({
    port: 0,
    idpUrl: idp.url,
    seedUsers: [
      { tenantId: TENANT_A, userPrincipalName: 'Alice@A.example.com', displayName: 'Alice' },
      { tenantId: TENANT_A, userPrincipalName: 'bob@a.example.com' },
      { tenantId: TENANT_A, userPrincipalName: GUEST_UPN },
      { tenantId: TENANT_B, userPrincipalName: 'zoe@b.example.com' },
    ],
  });
});

afterAll(async () => {
  await directory?.close();
  await idp?.close();
});

describe('identity-provider stand-in', () => {
  it('reports the real port and the per-tenant issuer and JWKS addresses', () => {
    expect(idp.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(idp.url).not.toMatch(/:0$/);
    expect(idp.issuer(TENANT_A)).toBe(`${idp.url}/${TENANT_A}/v2.0`);
    expect(idp.jwksUri(TENANT_A)).toBe(`${idp.url}/${TENANT_A}/discovery/v2.0/keys`);
  });

  it('issues an Entra v2.0 app token for the right secret', async () => {
    const res = await tokenRequest(TENANT_A, {
      grant_type: 'client_credentials',
      client_id: ADMIN.clientId,
      client_secret: ADMIN.secret,
      scope: `${SERVICE_AUDIENCE}/.default`,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ token_type: 'Bearer', expires_in: 3599, ext_expires_in: 3599 });
    const decoded = jwt.decode(res.body.access_token as string, { complete: true });
    expect(decoded?.header).toMatchObject({ alg: 'RS256', typ: 'JWT' });
    expect(typeof decoded?.header.kid).toBe('string');
    const claims = decoded?.payload as jwt.JwtPayload;
    expect(claims).toMatchObject({
      iss: `${idp.url}/${TENANT_A}/v2.0`,
      aud: SERVICE_AUDIENCE,
      tid: TENANT_A,
      azp: ADMIN.clientId,
      appid: ADMIN.clientId,
      azpacr: '1',
      roles: ['Admin', 'Reader'],
      idtyp: 'app',
      ver: '2.0',
    });
    expect(claims.oid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(claims.sub).toBe(claims.oid);
    expect(claims.exp! - claims.iat!).toBe(3600);
    expect(claims.nbf).toBe(claims.iat);
    // The oid is stable for the tenant and client.
    const again = jwt.decode(await tokenFor(ADMIN, `${GRAPH}/.default`)) as jwt.JwtPayload;
    expect(again.oid).toBe(claims.oid);
    expect(again.aud).toBe(GRAPH);
    expect(again.jti).not.toBe(claims.jti);
  });

  it('omits the roles claim for a client without roles', async () => {
    const claims = jwt.decode(await tokenFor(GRAPH_A, `${GRAPH}/.default`)) as jwt.JwtPayload;
    expect(claims).not.toHaveProperty('roles');
  });

  it('publishes the signing key as JWKS with the kid of its tokens, and the OpenID configuration', async () => {
    const token = await tokenFor(ADMIN, `${SERVICE_AUDIENCE}/.default`);
    const kid = jwt.decode(token, { complete: true })?.header.kid;
    const jwks = await request<{ keys: Array<Record<string, string>> }>(idp.jwksUri(TENANT_A));
    expect(jwks.status).toBe(200);
    expect(jwks.body.keys).toHaveLength(1);
    const key = jwks.body.keys[0]!;
    expect(key).toMatchObject({ kty: 'RSA', use: 'sig', kid, alg: 'RS256', e: 'AQAB' });
    expect(key).not.toHaveProperty('d');
    const verified = jwt.verify(token, createPublicKey({ key, format: 'jwk' }), {
      algorithms: ['RS256'],
      audience: SERVICE_AUDIENCE,
      issuer: idp.issuer(TENANT_A),
    });
    expect(verified).toMatchObject({ tid: TENANT_A });

    const config = await request(`${idp.url}/${TENANT_A}/v2.0/.well-known/openid-configuration`);
    expect(config.body).toMatchObject({
      issuer: idp.issuer(TENANT_A),
      jwks_uri: idp.jwksUri(TENANT_A),
      token_endpoint: `${idp.url}/${TENANT_A}/oauth2/v2.0/token`,
      id_token_signing_alg_values_supported: ['RS256'],
    });
  });

  it('keeps its signing key in the key file across a restart, so earlier tokens stay valid; without one each start has a new key', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'idp-key-'));
    const keyFile = path.join(dir, 'idp', 'signing-key.pem');
    const first = await startIdpStandIn({ port: 0, clients: [ADMIN], keyFile });
    const port = Number(new URL(first.url).port);
    const token = first.mintAppToken({
      tenantId: TENANT_A,
      clientId: ADMIN.clientId,
      audience: SERVICE_AUDIENCE,
      roles: ['Admin'],
    });
    await first.close();
    expect(fs.statSync(keyFile).mode & 0o077).toBe(0);

    const second = await startIdpStandIn({ port, clients: [ADMIN], keyFile });
    const fresh = await startIdpStandIn({ port: 0, clients: [ADMIN] });
    try {
      const jwks = await request<{ keys: Array<Record<string, string>> }>(second.jwksUri(TENANT_A));
      const key = jwks.body.keys[0]!;
      expect(key.kid).toBe(jwt.decode(token, { complete: true })?.header.kid);
      expect(
        jwt.verify(token, createPublicKey({ key, format: 'jwk' }), {
          algorithms: ['RS256'],
          audience: SERVICE_AUDIENCE,
          issuer: second.issuer(TENANT_A),
        }),
      ).toMatchObject({ tid: TENANT_A });
      expect(fresh.publicKeyPem).not.toBe(second.publicKeyPem);
    } finally {
      await second.close();
      await fresh.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a wrong client secret with invalid_client and does not echo it', async () => {
    const wrong = 'wrong-secret-do-not-echo';
    const res = await tokenRequest(TENANT_A, {
      grant_type: 'client_credentials',
      client_id: ADMIN.clientId,
      client_secret: wrong,
      scope: `${SERVICE_AUDIENCE}/.default`,
    });
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('invalid_client');
    expect(typeof res.body.error_description).toBe('string');
    expect(res.text).not.toContain(wrong);
    expect(res.text).not.toContain(ADMIN.secret);
  });

  it.each([
    ['an unknown client', TENANT_A, 'c0000000-0000-4000-8000-0000000000ff', ADMIN.secret],
    ['a client of another tenant', TENANT_B, ADMIN.clientId, ADMIN.secret],
    ['a missing secret', TENANT_A, ADMIN.clientId, ''],
  ])('refuses %s with invalid_client', async (_what, tenantId, clientId, secret) => {
    const res = await tokenRequest(tenantId, {
      grant_type: 'client_credentials',
      client_id: clientId,
      client_secret: secret,
      scope: `${SERVICE_AUDIENCE}/.default`,
    });
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('invalid_client');
  });

  it('accepts a secret with + and & when it is URL-encoded, and not when it is sent raw', async () => {
    const claims = jwt.decode(await tokenFor(TRICKY, `${SERVICE_AUDIENCE}/.default`)) as jwt.JwtPayload;
    expect(claims.azp).toBe(TRICKY.clientId);
    const raw = await request(`${idp.url}/${TENANT_A}/oauth2/v2.0/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `grant_type=client_credentials&client_id=${TRICKY.clientId}&client_secret=${TRICKY.secret}&scope=${encodeURIComponent(`${SERVICE_AUDIENCE}/.default`)}`,
    });
    expect(raw.status).toBe(401);
  });

  it.each([['api://business-identity-service'], ['api://business-identity-service/access'], ['/.default'], ['']])(
    'refuses scope %p with invalid_scope',
    async (scope) => {
      const res = await tokenRequest(TENANT_A, {
        grant_type: 'client_credentials',
        client_id: ADMIN.clientId,
        client_secret: ADMIN.secret,
        scope,
      });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('invalid_scope');
    },
  );

  it('refuses other grant types and non-form bodies', async () => {
    const grant = await tokenRequest(TENANT_A, {
      grant_type: 'password',
      client_id: ADMIN.clientId,
      client_secret: ADMIN.secret,
      scope: `${SERVICE_AUDIENCE}/.default`,
    });
    expect(grant.status).toBe(400);
    expect(grant.body.error).toBe('unsupported_grant_type');
    const json = await request(`${idp.url}/${TENANT_A}/oauth2/v2.0/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        grant_type: 'client_credentials',
        client_id: ADMIN.clientId,
        client_secret: ADMIN.secret,
        scope: `${SERVICE_AUDIENCE}/.default`,
      }),
    });
    expect(json.status).toBe(400);
    expect(json.text).not.toContain('access_token');
  });

  it('answers 404 JSON elsewhere, including a GET on the token endpoint', async () => {
    for (const [method, path] of [
      ['GET', '/nope'],
      ['GET', `/${TENANT_A}/oauth2/v2.0/token`],
      ['POST', `/${TENANT_A}/discovery/v2.0/keys`],
      ['GET', '/%E0%A4%A/discovery/v2.0/keys'],
    ] as const) {
      const res = await request(`${idp.url}${path}`, { method });
      expect([method, path, res.status]).toEqual([method, path, 404]);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    }
  });

  it('mints app and user tokens directly', () => {
    const expired = jwt.decode(
      idp.mintAppToken({
        tenantId: TENANT_A,
        clientId: ADMIN.clientId,
        audience: SERVICE_AUDIENCE,
        expiresInSeconds: -60,
        notBeforeOffsetSeconds: -120,
      }),
    ) as jwt.JwtPayload;
    expect(expired.exp!).toBeLessThan(Date.now() / 1000);
    expect(expired.nbf).toBe(expired.iat! - 120);
    expect(expired).not.toHaveProperty('roles');
    const user = jwt.decode(
      idp.mintUserToken({
        tenantId: TENANT_A,
        clientId: ADMIN.clientId,
        audience: SERVICE_AUDIENCE,
        scp: 'access',
        roles: ['Admin'],
        upn: 'u@a.example.com',
      }),
    ) as jwt.JwtPayload;
    expect(user).toMatchObject({
      idtyp: 'user',
      scp: 'access',
      roles: ['Admin'],
      upn: 'u@a.example.com',
      preferred_username: 'u@a.example.com',
      tid: TENANT_A,
      iss: idp.issuer(TENANT_A),
    });
    expect(typeof user.oid).toBe('string');
    const raw = jwt.decode(idp.signRaw({ hello: 'world' }, { kid: 'other' }), { complete: true });
    expect(raw?.header).toMatchObject({ alg: 'RS256', kid: 'other' });
    expect(raw?.payload).toEqual({ hello: 'world' });
    expect(idp.publicKeyPem).toMatch(/^-----BEGIN PUBLIC KEY-----/);
  });
});

describe('directory stand-in', () => {
  let tokenA: string;
  let tokenB: string;

  beforeAll(async () => {
    tokenA = await tokenFor(GRAPH_A, `${GRAPH}/.default`);
    tokenB = await tokenFor(GRAPH_B, `${GRAPH}/.default`);
  });

  beforeEach(() => directory.throttleNext(0, 1));

  it('requires a token', async () => {
    const res = await graph<GraphErrorBody>('/users', undefined);
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('InvalidAuthenticationToken');
  });

  it('lists the users of the token tenant with a valid Graph token', async () => {
    const res = await graph<UsersBody>('/users', tokenA);
    expect(res.status).toBe(200);
    expect(upnsOf(res)).toEqual(['Alice@A.example.com', 'bob@a.example.com', GUEST_UPN].sort());
    expect(res.body.value[0]).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      userPrincipalName: expect.any(String),
      displayName: expect.any(String),
      accountEnabled: true,
    });
  });

  it.each([
    ['audience is not Graph', () => tokenFor(ADMIN, `${SERVICE_AUDIENCE}/.default`)],
    [
      'token is expired',
      async () =>
        idp.mintAppToken({ tenantId: TENANT_A, clientId: GRAPH_A.clientId, audience: GRAPH, expiresInSeconds: -60 }),
    ],
    [
      'token is not valid yet',
      async () =>
        idp.mintAppToken({
          tenantId: TENANT_A,
          clientId: GRAPH_A.clientId,
          audience: GRAPH,
          notBeforeOffsetSeconds: 600,
        }),
    ],
    [
      'issuer is of another tenant',
      async () => idp.signRaw({ ...(jwt.decode(tokenA) as jwt.JwtPayload), iss: idp.issuer(TENANT_B) }),
    ],
    [
      'issuer is another authority',
      async () =>
        idp.signRaw({
          ...(jwt.decode(tokenA) as jwt.JwtPayload),
          iss: `https://login.microsoftonline.com/${TENANT_A}/v2.0`,
        }),
    ],
    ['key id is unknown', async () => idp.signRaw(jwt.decode(tokenA) as jwt.JwtPayload, { kid: 'no-such-key' })],
    [
      'token is HS256 signed with the public key',
      async () =>
        jwt.sign(jwt.decode(tokenA) as jwt.JwtPayload, idp.publicKeyPem, {
          algorithm: 'HS256',
          keyid: jwt.decode(tokenA, { complete: true })!.header.kid,
        }),
    ],
    ['signature is tampered', async () => `${tokenA.slice(0, tokenA.lastIndexOf('.'))}.${'A'.repeat(342)}`],
    ['token is not a JWT', async () => 'not-a-token'],
  ])('refuses a token when the %s', async (_what, make) => {
    const res = await graph<GraphErrorBody>('/users', await make());
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('InvalidAuthenticationToken');
  });

  it('finds a user by UPN with eq, case-insensitively', async () => {
    const res = await graph<UsersBody>(filterPath("userPrincipalName eq 'ALICE@a.EXAMPLE.com'"), tokenA);
    expect(res.status).toBe(200);
    expect(res.body['@odata.context' as keyof UsersBody]).toContain('$metadata#users');
    expect(upnsOf(res)).toEqual(['Alice@A.example.com']);
    const none = await graph<UsersBody>(filterPath("userPrincipalName eq 'nobody@a.example.com'"), tokenA);
    expect(none.body.value).toEqual([]);
  });

  it('finds several users with in', async () => {
    const res = await graph<UsersBody>(
      filterPath("userPrincipalName in ('bob@a.example.com', 'alice@a.example.com', 'nobody@a.example.com')"),
      tokenA,
    );
    expect(res.status).toBe(200);
    expect(upnsOf(res)).toEqual(['Alice@A.example.com', 'bob@a.example.com']);
  });

  it('finds a guest UPN with #EXT#, + and an apostrophe (doubled in the literal, percent-encoded in the URL)', async () => {
    const path = filterPath(`userPrincipalName eq ${odata(GUEST_UPN)}`);
    expect(path).toContain('%23EXT%23');
    expect(path).toContain('%2B');
    expect(path).toContain("o''brien");
    const res = await graph<UsersBody>(path, tokenA);
    expect(upnsOf(res)).toEqual([GUEST_UPN]);
    const inList = await graph<UsersBody>(
      filterPath(`userPrincipalName in (${odata(GUEST_UPN)},'bob@a.example.com')`),
      tokenA,
    );
    expect(upnsOf(inList)).toEqual(['bob@a.example.com', GUEST_UPN].sort());
    // Unescaped, the quote ends the literal early: not a valid filter.
    const unescaped = await graph<GraphErrorBody>(filterPath(`userPrincipalName eq '${GUEST_UPN}'`), tokenA);
    expect(unescaped.status).toBe(400);
  });

  it('gets a user by id or by URL-encoded UPN, and 404 for an unknown one', async () => {
    const guest = directory.findByUpn(TENANT_A, GUEST_UPN)!;
    const byId = await graph(`/users/${guest.id}`, tokenA);
    expect(byId.body).toMatchObject({ id: guest.id, userPrincipalName: GUEST_UPN });
    const byUpn = await graph(
      `/users/${encodeURIComponent(GUEST_UPN.toUpperCase())}?$select=id,userPrincipalName`,
      tokenA,
    );
    expect(byUpn.status).toBe(200);
    expect(byUpn.body).toMatchObject({ id: guest.id, userPrincipalName: GUEST_UPN });
    expect(byUpn.body).not.toHaveProperty('displayName');
    const missing = await graph<GraphErrorBody>(`/users/${encodeURIComponent('nobody@a.example.com')}`, tokenA);
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('Request_ResourceNotFound');
  });

  it('honours $select and $top', async () => {
    const res = await graph<UsersBody>('/users?$select=id,userPrincipalName&$top=2', tokenA);
    expect(res.status).toBe(200);
    expect(res.body.value).toHaveLength(2);
    for (const u of res.body.value) expect(Object.keys(u).sort()).toEqual(['id', 'userPrincipalName']);
    expect((await graph('/users?$select=nosuchproperty', tokenA)).status).toBe(400);
  });

  it.each([
    ["displayName eq 'Alice'"],
    ["userPrincipalName eq 'a@a.example.com' or userPrincipalName eq 'b@a.example.com'"],
    ["startswith(userPrincipalName,'a')"],
    ["userPrincipalName in 'a@a.example.com'"],
    ['userPrincipalName in ()'],
    ["userPrincipalName eq 'unterminated"],
  ])('refuses the unsupported filter %p with 400 BadRequest', async (filter) => {
    const res = await graph<GraphErrorBody>(filterPath(filter), tokenA);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('BadRequest');
  });

  it('allows at most 15 values in an in filter', async () => {
    const upns = (n: number) => Array.from({ length: n }, (_, i) => `'user${i}@a.example.com'`).join(',');
    expect((await graph(filterPath(`userPrincipalName in (${upns(15)})`), tokenA)).status).toBe(200);
    const res = await graph<GraphErrorBody>(filterPath(`userPrincipalName in (${upns(16)})`), tokenA);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('BadRequest');
  });

  it('creates, renames and deletes a user over HTTP', async () => {
    const created = await graph<DirectoryUserRecord>('/users', tokenA, {
      method: 'POST',
      json: { userPrincipalName: 'carol@a.example.com', displayName: 'Carol', accountEnabled: false },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      userPrincipalName: 'carol@a.example.com',
      displayName: 'Carol',
      accountEnabled: false,
    });
    const id = created.body.id;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(upnsOf(await graph<UsersBody>(filterPath("userPrincipalName eq 'carol@a.example.com'"), tokenA))).toEqual([
      'carol@a.example.com',
    ]);
    expect(directory.findByUpn(TENANT_A, 'CAROL@a.example.com')?.id).toBe(id);

    const duplicate = await graph('/users', tokenA, {
      method: 'POST',
      json: { userPrincipalName: 'Carol@A.example.com' },
    });
    expect(duplicate.status).toBe(400);

    const renamed = await graph(`/users/${id}`, tokenA, {
      method: 'PATCH',
      json: { userPrincipalName: 'carol.new@a.example.com' },
    });
    expect(renamed.status).toBe(204);
    expect(
      (await graph<UsersBody>(filterPath("userPrincipalName eq 'carol@a.example.com'"), tokenA)).body.value,
    ).toEqual([]);
    expect((await graph(`/users/${id}`, tokenA)).body).toMatchObject({
      id,
      userPrincipalName: 'carol.new@a.example.com',
    });
    const clash = await graph(`/users/${id}`, tokenA, {
      method: 'PATCH',
      json: { userPrincipalName: 'bob@a.example.com' },
    });
    expect(clash.status).toBe(400);

    expect((await graph(`/users/${id}`, tokenA, { method: 'DELETE' })).status).toBe(204);
    expect((await graph(`/users/${id}`, tokenA)).status).toBe(404);
    expect(
      (await graph<UsersBody>(filterPath("userPrincipalName eq 'carol.new@a.example.com'"), tokenA)).body.value,
    ).toEqual([]);
    expect((await graph(`/users/${id}`, tokenA, { method: 'DELETE' })).status).toBe(404);
  });

  it('answers a $batch of requests', async () => {
    const bob = directory.findByUpn(TENANT_A, 'bob@a.example.com')!;
    const res = await graph<{
      responses: Array<{ id: string; status: number; headers: Record<string, string>; body: Record<string, unknown> }>;
    }>('/$batch', tokenA, {
      method: 'POST',
      json: {
        requests: [
          {
            id: '1',
            method: 'GET',
            url: `/users?$filter=${encodeURIComponent(`userPrincipalName in (${odata(GUEST_UPN)},'alice@a.example.com')`)}&$select=id,userPrincipalName`,
          },
          { id: '2', method: 'GET', url: `/users/${bob.id}` },
          { id: '3', method: 'GET', url: '/users/00000000-0000-4000-8000-000000000000' },
        ],
      },
    });
    expect(res.status).toBe(200);
    const byId = new Map(res.body.responses.map((r) => [r.id, r]));
    expect(byId.get('1')).toMatchObject({ status: 200, headers: { 'Content-Type': 'application/json' } });
    expect((byId.get('1')!.body.value as DirectoryUserRecord[]).map((u) => u.userPrincipalName).sort()).toEqual(
      ['Alice@A.example.com', GUEST_UPN].sort(),
    );
    expect(byId.get('2')).toMatchObject({ status: 200, body: { id: bob.id, userPrincipalName: 'bob@a.example.com' } });
    expect(byId.get('3')).toMatchObject({ status: 404, body: { error: { code: 'Request_ResourceNotFound' } } });
  });

  it('refuses a $batch of more than 20 requests', async () => {
    const requests = Array.from({ length: 21 }, (_, i) => ({ id: String(i + 1), method: 'GET', url: '/users' }));
    const res = await graph<GraphErrorBody>('/$batch', tokenA, { method: 'POST', json: { requests } });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('BadRequest');
  });

  it('counts requests, batches and filter queries', async () => {
    directory.resetStats();
    expect(directory.stats()).toEqual({
      requests: 0,
      batchRequests: 0,
      filterQueries: 0,
      deltaRequests: 0,
      requestsByTenant: {},
    });
    await graph(filterPath("userPrincipalName eq 'bob@a.example.com'"), tokenA);
    await graph('/$batch', tokenA, {
      method: 'POST',
      json: {
        requests: [
          { id: 'a', method: 'GET', url: filterPath("userPrincipalName eq 'bob@a.example.com'") },
          { id: 'b', method: 'GET', url: filterPath("userPrincipalName in ('alice@a.example.com')") },
        ],
      },
    });
    expect(directory.stats()).toEqual({
      requests: 2,
      batchRequests: 1,
      filterQueries: 3,
      deltaRequests: 0,
      requestsByTenant: { [TENANT_A]: 2 },
    });
  });

  it('simulates throttling with 429 and Retry-After for the next requests only', async () => {
    directory.throttleNext(2, 7);
    for (let i = 0; i < 2; i++) {
      const res = await graph<GraphErrorBody>('/users', tokenA);
      expect(res.status).toBe(429);
      expect(res.headers.get('retry-after')).toBe('7');
      expect(res.body.error.code).toBe('TooManyRequests');
    }
    expect((await graph('/users', tokenA)).status).toBe(200);
  });

  it('isolates tenants', async () => {
    const alice = directory.findByUpn(TENANT_A, 'alice@a.example.com')!;
    expect(upnsOf(await graph<UsersBody>('/users', tokenB))).toEqual(['zoe@b.example.com']);
    expect(
      (await graph<UsersBody>(filterPath("userPrincipalName eq 'alice@a.example.com'"), tokenB)).body.value,
    ).toEqual([]);
    expect((await graph(`/users/${alice.id}`, tokenB)).status).toBe(404);
    expect((await graph(`/users/${alice.id}`, tokenB, { method: 'DELETE' })).status).toBe(404);
    expect(directory.findByUpn(TENANT_A, 'alice@a.example.com')?.id).toBe(alice.id);
    expect(directory.findByUpn(TENANT_B, 'alice@a.example.com')).toBeUndefined();
    // The same UPN may exist in both tenants.
    const created = await graph('/users', tokenB, {
      method: 'POST',
      json: { userPrincipalName: 'alice@a.example.com' },
    });
    expect(created.status).toBe(201);
    expect(directory.findByUpn(TENANT_B, 'alice@a.example.com')?.id).not.toBe(alice.id);
    directory.deleteUser(TENANT_B, directory.findByUpn(TENANT_B, 'alice@a.example.com')!.id);
  });

  it('offers direct helpers that the HTTP API sees', async () => {
    const dana = directory.createUser(TENANT_A, 'dana@a.example.com', 'Dana');
    expect(dana).toMatchObject({ userPrincipalName: 'dana@a.example.com', displayName: 'Dana', accountEnabled: true });
    expect(() => directory.createUser(TENANT_A, 'DANA@a.example.com')).toThrow();
    expect((await graph(`/users/${dana.id}`, tokenA)).body).toMatchObject({ userPrincipalName: 'dana@a.example.com' });
    directory.renameUser(TENANT_A, dana.id, 'dana.renamed@a.example.com');
    expect(directory.findByUpn(TENANT_A, 'dana@a.example.com')).toBeUndefined();
    expect(
      upnsOf(await graph<UsersBody>(filterPath("userPrincipalName eq 'dana.renamed@a.example.com'"), tokenA)),
    ).toEqual(['dana.renamed@a.example.com']);
    expect(() => directory.renameUser(TENANT_A, dana.id, 'bob@a.example.com')).toThrow();
    directory.deleteUser(TENANT_A, dana.id);
    expect(directory.findByUpn(TENANT_A, 'dana.renamed@a.example.com')).toBeUndefined();
    expect((await graph(`/users/${dana.id}`, tokenA)).status).toBe(404);
  });
});
