import jwt from 'jsonwebtoken';
import { services } from '../../lib/services';
import { startTestStack, call, type TestStack } from '../support/stack';
import { expectScimError, scim, userBody } from '../support/scim';
import {
  DEV_CLIENTS,
  DEV_TENANT_ID,
  GRAPH_RESOURCE,
  SERVICE_APP_ID_URI,
  UNREGISTERED_TENANT_ID,
} from '../../devhost/devData';

type GqlResult = {
  data?: Record<string, unknown> | null;
  errors?: Array<{ message: string; extensions?: { code?: string; problems?: Array<{ field: string }> } }>;
};

describe('authentication and SCIM integrations', () => {
  let stack: TestStack;
  const gql = (token: string | undefined, query: string, variables?: Record<string, unknown>) =>
    call<GqlResult>(`${stack.base}/graphql`, {
      method: 'POST',
      token,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables }),
    });
  const users = (token: string) => call(`${stack.base}/scim/v2/Users`, { token });

  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(async () => stack?.stop());

  describe('SCIM API', () => {
    const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const claims = () => {
      const now = Math.floor(Date.now() / 1000);
      return {
        iss: stack.idp.issuer(DEV_TENANT_ID),
        aud: SERVICE_APP_ID_URI,
        tid: DEV_TENANT_ID,
        azp: DEV_CLIENTS.scim.clientId,
        iat: now,
        nbf: now,
        exp: now + 3600,
        idtyp: 'app',
      };
    };

    it('401 with WWW-Authenticate: Bearer without a token', async () => {
      const res = await call(`${stack.base}/scim/v2/Users`);
      expectScimError(res, 401, undefined);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
    });

    it.each([
      ['garbage', () => 'not.a.token'],
      [
        'expired',
        () =>
          stack.idp.mintAppToken({
            tenantId: DEV_TENANT_ID,
            clientId: DEV_CLIENTS.scim.clientId,
            audience: SERVICE_APP_ID_URI,
            expiresInSeconds: -3600,
          }),
      ],
      ['alg none', () => `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims())}.`],
      ['HS256 signed with the public key', () => jwt.sign(claims(), stack.idp.publicKeyPem, { algorithm: 'HS256' })],
      [
        'for another audience (Graph)',
        () =>
          stack.idp.mintAppToken({
            tenantId: DEV_TENANT_ID,
            clientId: DEV_CLIENTS.scim.clientId,
            audience: GRAPH_RESOURCE,
          }),
      ],
      ['with an unknown key id', () => stack.idp.signRaw(claims(), { kid: 'no-such-key' })],
      [
        'with an issuer of another tenant',
        () => stack.idp.signRaw({ ...claims(), iss: stack.idp.issuer(UNREGISTERED_TENANT_ID) }),
      ],
    ])('401 for a token that is %s, without echoing it', async (_what, make) => {
      const token = make();
      const res = await users(token);
      expectScimError(res, 401, undefined, token);
      expect(res.headers.get('www-authenticate')).toContain('invalid_token');
    });

    it('401 for a valid token from an unregistered tenant', async () => {
      expectScimError(await users(await stack.token(DEV_CLIENTS.otherAdmin)), 401, undefined);
    });

    it('403 for a user token, even with the Admin role', async () => {
      const token = stack.idp.mintUserToken({
        tenantId: DEV_TENANT_ID,
        clientId: DEV_CLIENTS.scim.clientId,
        audience: SERVICE_APP_ID_URI,
        scp: 'user_impersonation',
        roles: ['Admin'],
      });
      expectScimError(await users(token), 403, undefined);
    });

    it('403 for a user token without scp (idtyp user), even from the integration client', async () => {
      const user = stack.idp.mintUserToken({
        tenantId: DEV_TENANT_ID,
        clientId: DEV_CLIENTS.scim.clientId,
        audience: SERVICE_APP_ID_URI,
        scp: 'user_impersonation',
      });
      const payload = JSON.parse(Buffer.from(user.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
      expect(payload.idtyp).toBe('user');
      expectScimError(await users(stack.idp.signRaw({ ...payload, scp: undefined })), 403, undefined);
    });

    it('401 for a token that does not say whether it is an app or a user token (no idtyp)', async () => {
      const token = stack.idp.signRaw({ ...claims(), idtyp: undefined });
      expectScimError(await users(token), 401, undefined, token);
    });

    it('401 for an app-only token (idtyp app) that carries delegated scopes', async () => {
      const token = stack.idp.signRaw({ ...claims(), idtyp: 'app', scp: 'user_impersonation' });
      expectScimError(await users(token), 401, undefined, token);
    });

    it('403 for a valid app token whose client has no integration, and for the Admin-role app', async () => {
      expectScimError(await users(await stack.token(DEV_CLIENTS.noRole)), 403, undefined);
      expectScimError(await users(await stack.token(DEV_CLIENTS.admin)), 403, undefined);
    });

    it('200 for the integration client', async () => {
      expect((await users(await stack.token(DEV_CLIENTS.scim))).status).toBe(200);
    });
  });

  describe('GraphQL API', () => {
    const LIST = '{ scimIntegrations { id displayName clientId enabled scimEndpoint } }';

    it.each([
      ['no token', async () => undefined],
      [
        'an expired token',
        async () =>
          stack.idp.mintAppToken({
            tenantId: DEV_TENANT_ID,
            clientId: DEV_CLIENTS.admin.clientId,
            audience: SERVICE_APP_ID_URI,
            roles: ['Admin'],
            expiresInSeconds: -3600,
          }),
      ],
      ['a token for another scope', async () => stack.token(DEV_CLIENTS.admin, `${GRAPH_RESOURCE}/.default`)],
      ['a token from an unregistered tenant', async () => stack.token(DEV_CLIENTS.otherAdmin)],
    ])('HTTP 200 with AUTH_NOT_AUTHENTICATED for %s', async (_what, make) => {
      const res = await gql(await make(), LIST);
      expect(res.status).toBe(200);
      expect(res.body.errors?.[0]?.extensions?.code).toBe('AUTH_NOT_AUTHENTICATED');
      expect(res.body.data).toBeNull();
    });

    it('HTTP 200 with AUTH_NOT_AUTHORIZED for a token without the Admin role', async () => {
      for (const client of [DEV_CLIENTS.noRole, DEV_CLIENTS.scim]) {
        const res = await gql(await stack.token(client), LIST);
        expect(res.status).toBe(200);
        expect(res.body.errors?.[0]?.extensions?.code).toBe('AUTH_NOT_AUTHORIZED');
      }
    });

    it('accepts a console user token only with the Console.Admin scope and the Admin role, and audits the user', async () => {
      const user = (scp: string, roles: string[]) =>
        stack.idp.mintUserToken({
          tenantId: DEV_TENANT_ID,
          clientId: DEV_CLIENTS.admin.clientId,
          audience: SERVICE_APP_ID_URI,
          scp,
          roles,
          upn: 'console-admin@dev.example.com',
        });
      const ok = await gql(user('Console.Admin', ['Admin']), LIST);
      expect(ok.body.errors).toBeUndefined();
      expect(Array.isArray(ok.body.data?.scimIntegrations)).toBe(true);
      for (const token of [
        user('Console.Admin', []),
        user('Console.Admin', ['Reader']),
        user('Console.Read', ['Admin']),
      ]) {
        const res = await gql(token, LIST);
        expect(res.body.errors?.map((e) => e.extensions?.code)).toEqual(['AUTH_NOT_AUTHORIZED']);
        expect(res.body.data).toBeNull();
      }
      const other = stack.idp.mintUserToken({
        tenantId: UNREGISTERED_TENANT_ID,
        clientId: DEV_CLIENTS.admin.clientId,
        audience: SERVICE_APP_ID_URI,
        scp: 'Console.Admin',
        roles: ['Admin'],
      });
      expect((await gql(other, LIST)).body.errors?.[0]?.extensions?.code).toBe('AUTH_NOT_AUTHENTICATED');
    });

    it('refuses a delegated user token without the console scope even when its roles include Admin', async () => {
      const token = stack.idp.mintUserToken({
        tenantId: DEV_TENANT_ID,
        clientId: DEV_CLIENTS.admin.clientId,
        audience: SERVICE_APP_ID_URI,
        scp: 'access',
        roles: ['Admin'],
      });
      const res = await gql(token, LIST);
      expect(res.status).toBe(200);
      expect(res.body.errors?.map((e) => e.extensions?.code)).toEqual(['AUTH_NOT_AUTHORIZED']);
      expect(res.body.data).toBeNull();
      // idtyp "user" alone (no scp) is a user token too.
      const idtypOnly = stack.idp.signRaw({
        ...JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()),
        scp: undefined,
      });
      expect((await gql(idtypOnly, LIST)).body.errors?.[0]?.extensions?.code).toBe('AUTH_NOT_AUTHORIZED');
    });

    it('creates an integration, refuses a second one with the same client id, disables and enables it', async () => {
      const admin = await stack.token(DEV_CLIENTS.admin);
      const CREATE =
        'mutation($i: CreateScimIntegrationInput!) { createScimIntegration(input: $i) { scimIntegration { id displayName clientId enabled scimEndpoint } } }';
      const created = await gql(admin, CREATE, {
        i: { displayName: 'HR', clientId: DEV_CLIENTS.noRole.clientId.toUpperCase() },
      });
      const integration = (created.body.data?.createScimIntegration as { scimIntegration: Record<string, unknown> })
        .scimIntegration;
      expect(integration).toMatchObject({
        displayName: 'HR',
        clientId: DEV_CLIENTS.noRole.clientId,
        enabled: true,
        scimEndpoint: `${stack.base}/scim/v2`,
      });

      const dup = await gql(admin, CREATE, { i: { displayName: 'HR again', clientId: DEV_CLIENTS.noRole.clientId } });
      expect(dup.body.errors?.[0]?.extensions?.code).toBe('SCIM_INTEGRATION_CLIENT_ID_TAKEN');

      const api = scim(stack, await stack.token(DEV_CLIENTS.noRole));
      const user = await api.create(userBody());
      expect(user.status).toBe(201);

      const disabled = await gql(
        admin,
        'mutation($id: ID!) { disableScimIntegration(input: { id: $id }) { scimIntegration { id enabled } } }',
        { id: integration.id },
      );
      expect(disabled.body.data?.disableScimIntegration).toEqual({
        scimIntegration: { id: integration.id, enabled: false },
      });
      expectScimError(await api.get(user.body.id), 403, undefined);

      await gql(
        admin,
        'mutation($id: ID!) { enableScimIntegration(input: { id: $id }) { scimIntegration { enabled } } }',
        { id: integration.id },
      );
      expect((await api.get(user.body.id)).status).toBe(200); // the Users stayed
    });

    it('validates input with BAD_USER_INPUT naming the field', async () => {
      const admin = await stack.token(DEV_CLIENTS.admin);
      const res = await gql(
        admin,
        'mutation { createScimIntegration(input: { displayName: "", clientId: "not-a-guid-secret" }) { scimIntegration { id } } }',
      );
      expect(res.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
      expect(res.body.errors?.[0]?.extensions?.problems?.map((p) => p.field).sort()).toEqual([
        'input.clientId',
        'input.displayName',
      ]);
      expect(res.text).not.toContain('not-a-guid-secret');
    });

    it('exactly one of concurrent creates with the same client id wins', async () => {
      const admin = await stack.token(DEV_CLIENTS.admin);
      const clientId = 'cccccccc-0000-4000-8000-000000000042';
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          gql(
            admin,
            'mutation($i: CreateScimIntegrationInput!) { createScimIntegration(input: $i) { scimIntegration { id } } }',
            { i: { displayName: `Race ${i}`, clientId } },
          ),
        ),
      );
      expect(results.filter((r) => r.body.data?.createScimIntegration).length).toBe(1);
      expect(
        results.filter((r) => r.body.errors?.[0]?.extensions?.code === 'SCIM_INTEGRATION_CLIENT_ID_TAKEN').length,
      ).toBe(9);
    });

    it('audits administrator actions without secrets', async () => {
      const entries = await services().audit.list(DEV_TENANT_ID);
      const actions = entries.map((e) => e.action);
      expect(actions).toEqual(
        expect.arrayContaining(['scimIntegration.create', 'scimIntegration.disable', 'scimIntegration.enable']),
      );
      expect(JSON.stringify(entries)).not.toContain('secret');
    });

    it('keeps introspection on locally, for administrators only', async () => {
      const res = await gql(await stack.token(DEV_CLIENTS.admin), '{ __schema { queryType { name } } }');
      expect(res.body.data).toEqual({ __schema: { queryType: { name: 'Query' } } });
      const anonymous = await gql(undefined, '{ __schema { queryType { name } } }');
      expect(anonymous.body.errors?.map((e) => e.extensions?.code)).toEqual(['AUTH_NOT_AUTHENTICATED']);
    });
  });
});

describe('GraphQL query limits', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(async () => stack?.stop());
  const post = async (query: string) =>
    call<GqlResult>(`${stack.base}/graphql`, {
      method: 'POST',
      token: await stack.token(DEV_CLIENTS.admin),
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query }),
    });

  it('refuses too many aliases and too deep queries with QUERY_TOO_COMPLEX', async () => {
    const aliases = `{ ${Array.from({ length: 25 }, (_, i) => `a${i}: scimIntegrations { id }`).join(' ')} }`;
    expect((await post(aliases)).body.errors?.[0]?.extensions?.code).toBe('QUERY_TOO_COMPLEX');
    // Introspection may nest 16 levels (GraphiQL's query needs 12); data queries 10 (tests/unit/graphql/limits.test.ts).
    const deep = `{ __schema { types { fields { type ${'{ ofType '.repeat(14)}{ name }${' }'.repeat(14)} } } } }`;
    expect((await post(deep)).body.errors?.[0]?.extensions?.code).toBe('QUERY_TOO_COMPLEX');
    expect((await post('{ a: scimIntegrations { id } b: scimIntegrations { id } }')).body.errors).toBeUndefined();
  });

  it('a token of one tenant with a client id registered only in another tenant gets no access', async () => {
    await services().tenants.register(UNREGISTERED_TENANT_ID);
    const confused = stack.idp.mintAppToken({
      tenantId: UNREGISTERED_TENANT_ID,
      clientId: DEV_CLIENTS.scim.clientId,
      audience: SERVICE_APP_ID_URI,
    });
    expectScimError(await call(`${stack.base}/scim/v2/Users`, { token: confused }), 403, undefined);
    await services().tenants.remove(UNREGISTERED_TENANT_ID);
  });

  it('sends security headers on every response', async () => {
    for (const url of [`${stack.base}/scim/v2/ServiceProviderConfig`, `${stack.base}/scim/v2/Users`]) {
      const res = await call(url);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('cache-control')).toBe('no-store');
    }
    const gql = await post('{ scimIntegrations { id } }');
    expect(gql.headers.get('x-content-type-options')).toBe('nosniff');
  });
});
