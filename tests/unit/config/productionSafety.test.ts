/**
 * Production fails closed: on an Azure instance (WEBSITE_*) or with NODE_ENV=production, settings that
 * only make sense on the local stack stop the start with a message that names the setting, never its value.
 */
import { ConfigError, loadSettings } from '../../../lib/config/settings';
import { ENTRA_AUTHORITIES, GRAPH_ENDPOINTS, PRODUCTION_MAXIMA } from '../../../lib/config/productionSafety';

const CLIENT_ID = '5d2a7f0e-8b1c-4e3d-9f6a-2b4c6d8e0f12';
const EMULATOR_KEY = 'C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==';

/** What the template deploys, without the platform's markers. */
const deployed: Record<string, string> = {
  PUBLIC_BASE_URL: 'https://func-abc.azurewebsites.net',
  COSMOS_ENDPOINT: 'https://cosmos-abc.documents.azure.com:443/',
  AUTH_AUTHORITY: 'https://login.microsoftonline.com',
  SERVICE_CLIENT_ID: CLIENT_ID,
  GRAPH_BASE_URL: 'https://graph.microsoft.com',
  GRAPH_CREDENTIAL: 'managedIdentity',
  GRAPH_CLIENT_ID: CLIENT_ID,
  GRAPH_MANAGED_IDENTITY_CLIENT_ID: 'cccccccc-0000-4000-8000-000000000001',
  BACKGROUND_QUEUE__queueServiceUri: 'https://stabc.queue.core.windows.net/',
  KEY_VAULT_URL: 'https://kv-abc.vault.azure.net/',
};
const markers: Array<[string, Record<string, string>]> = [
  ['an Azure instance', { WEBSITE_SITE_NAME: 'func-abc', WEBSITE_INSTANCE_ID: '0f1e2d3c4b5a69788796a5b4c3d2e1f0' }],
  ['an Azure site', { WEBSITE_SITE_NAME: 'func-abc' }],
  ['NODE_ENV=production', { NODE_ENV: 'production' }],
];

function refusalOf(env: Record<string, string>): ConfigError {
  try {
    loadSettings(env);
  } catch (e) {
    if (e instanceof ConfigError) return e;
    throw e;
  }
  throw new Error('expected a ConfigError');
}

describe.each(markers)('production settings on %s', (_where, marker) => {
  const prod = (over: Record<string, string>) => ({ ...deployed, ...marker, ...over });

  it('accept what the template deploys, in every cloud', () => {
    expect(loadSettings(prod({})).auth.audiences).toEqual([CLIENT_ID]);
    for (const authority of ENTRA_AUTHORITIES)
      expect(loadSettings(prod({ AUTH_AUTHORITY: authority })).auth.authority).toBe(authority);
    for (const graph of GRAPH_ENDPOINTS)
      expect(loadSettings(prod({ GRAPH_BASE_URL: graph })).graph.baseUrl).toBe(graph);
  });

  it.each([
    ['an http loopback authority', 'AUTH_AUTHORITY', 'http://127.0.0.1:7072'],
    ['an https authority outside the clouds', 'AUTH_AUTHORITY', 'https://login.evil-cloud.example'],
    ['an authority with a path', 'AUTH_AUTHORITY', 'https://login.microsoftonline.com/common'],
    ['an http Graph URL', 'GRAPH_BASE_URL', 'http://localhost:7073'],
    ['a Graph URL outside the clouds', 'GRAPH_BASE_URL', 'https://graph.evil-cloud.example'],
    ["the emulator's well-known key", 'COSMOS_KEY', EMULATOR_KEY],
    ['an http store endpoint', 'COSMOS_ENDPOINT', 'http://localhost:8081'],
    ['an Azurite connection string', 'BACKGROUND_QUEUE', 'UseDevelopmentStorage=true'],
    ['an http queue URI', 'BACKGROUND_QUEUE__queueServiceUri', 'http://127.0.0.1:10001/devstoreaccount1'],
    ['introspection', 'GRAPHQL_INTROSPECTION', 'true'],
    ['an http public URL', 'PUBLIC_BASE_URL', 'http://localhost:7071'],
    ['an http Key Vault (the stand-in)', 'KEY_VAULT_URL', 'http://127.0.0.1:7074'],
  ])('refuse %s, naming %s and not the value', (_what, setting, value) => {
    const err = refusalOf(prod({ [setting]: value }));
    expect(err.setting).toBe(setting);
    expect(err.message).toContain(setting);
    expect(err.message).not.toContain(value);
  });

  it('require the Key Vault of field encryption (numbers are never stored plain in production)', () => {
    const { KEY_VAULT_URL: _omitted, ...withoutVault } = prod({});
    expect(refusalOf(withoutVault).setting).toBe('KEY_VAULT_URL');
  });

  it('refuse a client secret (local stack only)', () => {
    const err = refusalOf(prod({ GRAPH_CREDENTIAL: 'clientSecret', GRAPH_CLIENT_SECRET: 'dev-service-graph-secret' }));
    expect(err.setting).toBe('GRAPH_CLIENT_SECRET');
    expect(err.message).not.toContain('dev-service-graph-secret');
  });

  it('require the queue service URI', () => {
    const env = prod({});
    delete env.BACKGROUND_QUEUE__queueServiceUri;
    expect(refusalOf(env).setting).toBe('BACKGROUND_QUEUE__queueServiceUri');
  });

  it('require the service client id as audience (no guessable App ID URI)', () => {
    const env = prod({});
    delete env.SERVICE_CLIENT_ID;
    expect(refusalOf(env).setting).toBe('SERVICE_CLIENT_ID');
    expect(refusalOf(prod({ SERVICE_APP_ID_URI: 'api://business-identity-service' })).setting).toBe(
      'SERVICE_APP_ID_URI',
    );
  });

  it.each(PRODUCTION_MAXIMA.map(([name, , max]) => [name, max] as const))(
    'refuse %s above %d, naming it and not the value',
    (name, max) => {
      // The bulk budget must hold the largest association request: it is raised with that limit; the body budget
      // must be at least twice a tenant's share: it is raised with the share.
      const withLimit = (value: number): Record<string, string> =>
        name === 'ASSOCIATION_MAX_PAIRS'
          ? { [name]: String(value), BULK_ITEMS_PER_MINUTE: String(Math.max(value, 250_000)) }
          : name === 'GRAPHQL_TENANT_BODY_BYTES_IN_FLIGHT'
            ? { [name]: String(value), GRAPHQL_BODY_BYTES_IN_FLIGHT: String(2 * value) }
            : { [name]: String(value) };
      const err = refusalOf(prod(withLimit(max + 1)));
      expect(err.setting).toBe(name);
      expect(err.message).not.toContain(String(max + 1));
      expect(loadSettings(prod(withLimit(max)))).toBeDefined();
    },
  );
});

describe('the local stack', () => {
  it('keeps its loopback endpoints, key, connection string and introspection outside production', () => {
    const s = loadSettings({
      ...deployed,
      NODE_ENV: 'development',
      AUTH_AUTHORITY: 'http://127.0.0.1:7072',
      GRAPH_BASE_URL: 'http://localhost:7073',
      COSMOS_ENDPOINT: 'http://localhost:8081',
      COSMOS_KEY: EMULATOR_KEY,
      BACKGROUND_QUEUE: 'UseDevelopmentStorage=true',
      GRAPHQL_INTROSPECTION: 'true',
    });
    expect(s.graphqlIntrospection).toBe(true);
    expect(s.cosmos.key).toBe(EMULATOR_KEY);
  });

  it('refuses a bulk budget smaller than the largest association request, naming it', () => {
    const err = refusalOf({ ...deployed, BULK_ITEMS_PER_MINUTE: '1000', ASSOCIATION_MAX_PAIRS: '5000' });
    expect(err.setting).toBe('BULK_ITEMS_PER_MINUTE');
    expect(err.message).not.toContain('1000');
  });
});
