/**
 * Token audience under the settings the template deploys in Azure: v2.0 tokens carry the service's client
 * id as `aud` and are accepted; the local stack's App ID URI, which any application in any tenant can
 * claim, is refused both as a setting (the service does not start) and as a token audience.
 */
import { generateKeyPairSync } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { ConfigError, LOCAL_APP_ID_URI, hostedInAzure, loadSettings } from '../../../lib/config/settings';
import { createTokenValidator, TokenValidationError } from '../../../lib/auth/tokenValidator';

const ENTRA = 'https://login.microsoftonline.com';
const CLIENT_ID = '5d2a7f0e-8b1c-4e3d-9f6a-2b4c6d8e0f12';
const TENANT = '3f2504e0-4f89-41d3-9a0c-0305e82c3301';
const CALLER = 'aaaaaaaa-0000-4000-8000-000000000009';

/** Settings as infra/modules/functionapp.bicep deploys them (main.bicep defaults), on an Azure instance. */
const azure: Record<string, string> = {
  WEBSITE_INSTANCE_ID: '0f1e2d3c4b5a69788796a5b4c3d2e1f0',
  WEBSITE_SITE_NAME: 'func-abc',
  PUBLIC_BASE_URL: 'https://func-abc.azurewebsites.net',
  COSMOS_ENDPOINT: 'https://cosmos-abc.documents.azure.com:443/',
  AUTH_AUTHORITY: ENTRA,
  SERVICE_APP_ID_URI: '',
  SERVICE_CLIENT_ID: CLIENT_ID,
  GRAPH_CREDENTIAL: 'managedIdentity',
  GRAPH_CLIENT_ID: CLIENT_ID,
  GRAPH_MANAGED_IDENTITY_CLIENT_ID: 'cccccccc-0000-4000-8000-000000000001',
  BACKGROUND_QUEUE__queueServiceUri: 'https://stabc.queue.core.windows.net/',
  KEY_VAULT_URL: 'https://kv-abc.vault.azure.net/',
};

const key = generateKeyPairSync('rsa', { modulusLength: 2048 });
const jwks = { keys: [{ ...key.publicKey.export({ format: 'jwk' }), kid: 'k1', use: 'sig' }] };

function token(aud: string): string {
  const now = Math.floor(Date.now() / 1000);
  return jwt.sign(
    {
      iss: `${ENTRA}/${TENANT}/v2.0`,
      aud,
      tid: TENANT,
      azp: CALLER,
      iat: now,
      nbf: now,
      exp: now + 3600,
      idtyp: 'app',
      ver: '2.0',
      roles: ['Admin'],
    },
    key.privateKey,
    {
      algorithm: 'RS256',
      keyid: 'k1',
    },
  );
}

/** The validator exactly as lib/services.ts builds it from the settings. */
function validatorFor(env: Record<string, string>) {
  const s = loadSettings(env);
  return createTokenValidator({
    authority: s.auth.authority,
    audiences: s.auth.audiences,
    fetchJwks: async () => jwks,
  });
}

function configErrorOf(env: Record<string, string>): ConfigError {
  try {
    loadSettings(env);
  } catch (e) {
    if (e instanceof ConfigError) return e;
    throw e;
  }
  throw new Error('expected a ConfigError');
}

describe('token audience under production settings', () => {
  it('knows it runs in Azure from the platform variables only', () => {
    expect(hostedInAzure(azure)).toBe(true);
    expect(hostedInAzure({ WEBSITE_SITE_NAME: 'func-abc' })).toBe(true);
    expect(hostedInAzure({ FUNCTIONS_WORKER_RUNTIME: 'node', AZURE_FUNCTIONS_ENVIRONMENT: 'Development' })).toBe(false);
    expect(hostedInAzure({ WEBSITE_SITE_NAME: ' ' })).toBe(false);
  });

  it("does not take an instance id alone for Azure: the local stack's instances carry one each", () => {
    expect(hostedInAzure({ WEBSITE_INSTANCE_ID: '0f1e2d3c4b5a69788796a5b4c3d2e1f0' })).toBe(false);
  });

  it('accepts a v2 token whose aud is the service client id', async () => {
    expect(loadSettings(azure).auth.audiences).toEqual([CLIENT_ID]);
    await expect(validatorFor(azure).validate(`Bearer ${token(CLIENT_ID)}`)).resolves.toMatchObject({
      tenantId: TENANT,
      kind: 'app',
      roles: ['Admin'],
    });
  });

  it('refuses a token whose aud is the old default App ID URI', async () => {
    const refused = await validatorFor(azure)
      .validate(`Bearer ${token(LOCAL_APP_ID_URI)}`)
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(refused).toBeInstanceOf(TokenValidationError);
    expect((refused as TokenValidationError).failure).toBe('wrong_audience');
    expect((refused as Error).message).not.toContain(LOCAL_APP_ID_URI);
  });

  it('does not start with the old default App ID URI configured, and does not echo it', () => {
    for (const uri of [LOCAL_APP_ID_URI, 'API://business-identity-service']) {
      const err = configErrorOf({ ...azure, SERVICE_APP_ID_URI: uri });
      expect(err.setting).toBe('SERVICE_APP_ID_URI');
      expect(err.message.toLowerCase()).not.toContain(uri.toLowerCase());
    }
  });

  it('accepts a tenant-unique App ID URI only when configured, and refuses one any app could claim', async () => {
    const unique = `api://${TENANT}/business-identity-service`;
    const env = { ...azure, SERVICE_APP_ID_URI: unique };
    expect(loadSettings(env).auth.audiences).toEqual([CLIENT_ID, unique]);
    await expect(validatorFor(env).validate(`Bearer ${token(unique)}`)).resolves.toMatchObject({ kind: 'app' });
    for (const uri of [
      `api://${CLIENT_ID}`,
      'api://contoso.com/business-identity',
      'https://contoso.com/business-identity',
    ]) {
      expect(loadSettings({ ...azure, SERVICE_APP_ID_URI: uri }).auth.audiences).toEqual([CLIENT_ID, uri]);
    }
    for (const uri of ['api://provisioning', 'urn:business-identity', 'http://contoso.com/x', 'not a uri']) {
      const err = configErrorOf({ ...azure, SERVICE_APP_ID_URI: uri });
      expect(err.setting).toBe('SERVICE_APP_ID_URI');
      expect(err.message).not.toContain(uri);
    }
  });

  it.each([
    [{ SERVICE_CLIENT_ID: '' }, 'SERVICE_CLIENT_ID'],
    [{ SERVICE_CLIENT_ID: 'business-identity-client' }, 'SERVICE_CLIENT_ID'],
    [{ GRAPH_MANAGED_IDENTITY_CLIENT_ID: '' }, 'GRAPH_MANAGED_IDENTITY_CLIENT_ID'],
    [{ GRAPH_CLIENT_ID: '' }, 'GRAPH_CLIENT_ID'],
  ])('refuses to start in Azure without what the audience and Graph need %#', (over, setting) => {
    const err = configErrorOf({ ...azure, ...over });
    expect(err.setting).toBe(setting);
    expect(err.message).not.toContain('business-identity-client');
  });

  it('keeps the local stack as it is: the local App ID URI, plus the client id when set', () => {
    const local = {
      PUBLIC_BASE_URL: 'http://localhost:7071',
      COSMOS_ENDPOINT: 'http://localhost:8081',
      AUTH_AUTHORITY: 'http://localhost:7072',
    };
    expect(loadSettings(local).auth.audiences).toEqual([LOCAL_APP_ID_URI]);
    expect(loadSettings({ ...local, SERVICE_CLIENT_ID: CLIENT_ID }).auth.audiences).toEqual([
      LOCAL_APP_ID_URI,
      CLIENT_ID,
    ]);
  });
});
