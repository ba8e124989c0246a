/**
 * App or user token, decided by the token's `idtyp` claim (Entra: `app` in app-only tokens, `user` in user
 * tokens when the resource application asks for the optional claim with `include_user_token`). Where
 * production rules apply, and everywhere unless a named development setting allows it, a token without `idtyp`
 * is refused.
 */
import { generateKeyPairSync } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { createTokenValidator, TokenValidationError, type Caller } from '../../../lib/auth/tokenValidator';
import { loadSettings } from '../../../lib/config/settings';

const ENTRA = 'https://login.microsoftonline.com';
const TENANT = '3f2504e0-4f89-41d3-9a0c-0305e82c3301';
const SERVICE_CLIENT_ID = '5d2a7f0e-8b1c-4e3d-9f6a-2b4c6d8e0f12';
const CLIENT = 'aaaaaaaa-0000-4000-8000-000000000009';
const USER_OID = 'c0ffee00-1111-4222-8333-444455556666';

const key = generateKeyPairSync('rsa', { modulusLength: 2048 });
const jwks = { keys: [{ ...key.publicKey.export({ format: 'jwk' }), kid: 'k1', use: 'sig' }] };

/** A v2.0 token of the tenant for the service; an override of undefined removes the claim. */
function token(over: Record<string, unknown>): string {
  const now = Math.floor(Date.now() / 1000);
  const all: Record<string, unknown> = {
    iss: `${ENTRA}/${TENANT}/v2.0`,
    aud: SERVICE_CLIENT_ID,
    tid: TENANT,
    azp: CLIENT,
    oid: USER_OID,
    iat: now,
    nbf: now,
    exp: now + 3600,
    ver: '2.0',
    roles: ['Admin'],
    ...over,
  };
  const claims = Object.fromEntries(Object.entries(all).filter(([, v]) => v !== undefined));
  return `Bearer ${jwt.sign(claims, key.privateKey, { algorithm: 'RS256', keyid: 'k1' })}`;
}

function validator(requireTokenType: boolean) {
  return createTokenValidator({
    authority: ENTRA,
    audiences: [SERVICE_CLIENT_ID],
    requireTokenType,
    fetchJwks: async () => jwks,
  });
}

async function refusal(p: Promise<Caller>): Promise<TokenValidationError> {
  const outcome = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (outcome instanceof TokenValidationError) return outcome;
  throw new Error('expected a TokenValidationError');
}

/** Settings as infra/modules/functionapp.bicep deploys them, on an Azure instance. */
const azure: Record<string, string> = {
  WEBSITE_INSTANCE_ID: '0f1e2d3c4b5a69788796a5b4c3d2e1f0',
  WEBSITE_SITE_NAME: 'func-abc',
  PUBLIC_BASE_URL: 'https://func-abc.azurewebsites.net',
  COSMOS_ENDPOINT: 'https://cosmos-abc.documents.azure.com:443/',
  SERVICE_CLIENT_ID,
  GRAPH_CREDENTIAL: 'managedIdentity',
  GRAPH_CLIENT_ID: SERVICE_CLIENT_ID,
  GRAPH_MANAGED_IDENTITY_CLIENT_ID: 'cccccccc-0000-4000-8000-000000000001',
  BACKGROUND_QUEUE__queueServiceUri: 'https://stabc.queue.core.windows.net/',
  KEY_VAULT_URL: 'https://kv-abc.vault.azure.net/',
};
const local = {
  PUBLIC_BASE_URL: 'http://localhost:7071',
  COSMOS_ENDPOINT: 'http://localhost:8081',
  AUTH_AUTHORITY: 'http://localhost:7072',
};

describe('app or user token, by idtyp', () => {
  it.each([true, false])('idtyp user without scp is a user token (requireTokenType %p)', async (required) => {
    const caller = await validator(required).validate(token({ idtyp: 'user' }));
    expect(caller).toMatchObject({ kind: 'user', scopes: [], objectId: USER_OID });
  });

  it.each([true, false])('idtyp app without scp is an app token (requireTokenType %p)', async (required) => {
    expect((await validator(required).validate(token({ idtyp: 'app' }))).kind).toBe('app');
  });

  it('refuses an app-only token that carries delegated scopes', async () => {
    const err = await refusal(validator(false).validate(token({ idtyp: 'app', scp: 'Console.Admin' })));
    expect(err.failure).toBe('malformed');
    expect(err.message).not.toContain('Console.Admin');
  });

  it.each(['device', 'APP', '', 7])('refuses idtyp %p, without repeating it', async (idtyp) => {
    for (const required of [true, false]) {
      const err = await refusal(validator(required).validate(token({ idtyp })));
      expect(err.failure).toBe('malformed');
      expect(err.message).not.toContain('device');
      expect(err.message).not.toContain('APP');
    }
  });

  it('refuses a token without idtyp where production rules apply, app-looking or user-looking', async () => {
    for (const over of [{}, { scp: 'Console.Admin' }]) {
      const err = await refusal(validator(true).validate(token(over)));
      expect(err.failure).toBe('malformed');
      expect(err.message).toMatch(/application or a user token/);
    }
  });

  it('where untyped tokens are allowed, a token without idtyp is told apart by scp as before', async () => {
    expect((await validator(false).validate(token({}))).kind).toBe('app');
    expect((await validator(false).validate(token({ scp: 'Console.Admin' }))).kind).toBe('user');
  });
});

describe('which settings require idtyp', () => {
  it('every deployment requires it: Azure, NODE_ENV=production and the local stack alike', () => {
    expect(loadSettings(azure).auth.requireTokenType).toBe(true);
    const { WEBSITE_INSTANCE_ID: _i, WEBSITE_SITE_NAME: _n, ...elsewhere } = azure;
    expect(loadSettings({ ...elsewhere, NODE_ENV: 'production' }).auth.requireTokenType).toBe(true);
    expect(loadSettings(local).auth.requireTokenType).toBe(true);
  });

  it('only the named development setting allows a token without idtyp, and production refuses that setting', () => {
    expect(loadSettings({ ...local, AUTH_ALLOW_UNTYPED_TOKENS: 'true' }).auth.requireTokenType).toBe(false);
    expect(() => loadSettings({ ...azure, AUTH_ALLOW_UNTYPED_TOKENS: 'true' })).toThrow(/AUTH_ALLOW_UNTYPED_TOKENS/);
  });

  it('the validator built from local settings refuses a token without idtyp', async () => {
    const v = validator(loadSettings(local).auth.requireTokenType);
    const err = await refusal(v.validate(token({})));
    expect(err.failure).toBe('malformed');
    expect((await v.validate(token({ idtyp: 'app' }))).kind).toBe('app');
  });

  it('the validator built from production settings refuses a token without idtyp and accepts one with it', async () => {
    const s = loadSettings(azure);
    const v = createTokenValidator({
      authority: s.auth.authority,
      audiences: s.auth.audiences,
      requireTokenType: s.auth.requireTokenType,
      fetchJwks: async () => jwks,
    });
    expect((await refusal(v.validate(token({})))).failure).toBe('malformed');
    expect((await v.validate(token({ idtyp: 'app' }))).kind).toBe('app');
    expect((await v.validate(token({ idtyp: 'user', scp: 'Console.Admin' }))).kind).toBe('user');
  });
});
