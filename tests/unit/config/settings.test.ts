import { ConfigError, loadSettings } from '../../../lib/config/settings';
import { checkIfMatch } from '../../../lib/scim/ifMatch';
import { RateLimiter } from '../../../lib/http/rateLimiter';

const base = { PUBLIC_BASE_URL: 'https://svc.example.com/', COSMOS_ENDPOINT: 'https://acct.documents.azure.com:443/' };

describe('settings', () => {
  it('reads defaults and trims trailing slashes', () => {
    const s = loadSettings(base);
    expect(s.publicBaseUrl).toBe('https://svc.example.com');
    expect(s.retentionInactiveDays).toBe(90);
    expect(s.auth.audiences).toEqual(['api://business-identity-service']);
    expect(s.graph.credential).toBe('managedIdentity');
    expect(s.graphqlIntrospection).toBe(false);
    expect(s.bulkRequestUnitsPerSecondPerTenant).toBe(2_000);
    expect(s.bulkRequestUnitsPerSecond).toBe(2_500);
  });

  it.each([
    [{ COSMOS_ENDPOINT: 'https://x' }, 'PUBLIC_BASE_URL'],
    [{ ...base, COSMOS_ENDPOINT: 'not a url' }, 'COSMOS_ENDPOINT'],
    [{ ...base, RETENTION_INACTIVE_DAYS: 'ninety' }, 'RETENTION_INACTIVE_DAYS'],
    [{ ...base, GRAPHQL_INTROSPECTION: 'maybe' }, 'GRAPHQL_INTROSPECTION'],
    [{ ...base, GRAPH_CREDENTIAL: 'clientSecret' }, 'GRAPH_CLIENT_ID'],
    [{ ...base, IMPORT_MAX_DELETE_RATIO: '2' }, 'IMPORT_MAX_DELETE_RATIO'],
    [{ ...base, BULK_REQUEST_UNITS_PER_SECOND_PER_TENANT: '0' }, 'BULK_REQUEST_UNITS_PER_SECOND_PER_TENANT'],
    [{ ...base, BULK_REQUEST_UNITS_PER_SECOND: '1000' }, 'BULK_REQUEST_UNITS_PER_SECOND_PER_TENANT'],
    [{ ...base, GRAPH_CREDENTIAL: 'certificate', GRAPH_CLIENT_ID: 'c' }, 'GRAPH_CERTIFICATE'],
    [
      {
        ...base,
        GRAPH_CREDENTIAL: 'certificate',
        GRAPH_CLIENT_ID: 'c',
        GRAPH_CERTIFICATE: '@Microsoft.KeyVault(VaultName=kv;SecretName=graph-client)',
      },
      'GRAPH_CERTIFICATE',
    ],
  ])('names the bad setting %#', (env, name) => {
    let err: unknown;
    try {
      loadSettings(env);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).setting).toBe(name);
    expect((err as Error).message).toContain(name);
  });

  it('takes the Graph certificate as PEM content (Key Vault reference in Azure) or as a file path', () => {
    const pem =
      '-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n-----BEGIN CERTIFICATE-----\nMIIC\n-----END CERTIFICATE-----\n';
    const fromContent = loadSettings({
      ...base,
      GRAPH_CREDENTIAL: 'certificate',
      GRAPH_CLIENT_ID: 'c',
      GRAPH_CERTIFICATE: pem,
    });
    expect(fromContent.graph.certificate).toBe(pem.trim());
    const fromPath = loadSettings({
      ...base,
      GRAPH_CREDENTIAL: 'certificate',
      GRAPH_CLIENT_ID: 'c',
      GRAPH_CERTIFICATE_PATH: '/etc/graph.pem',
    });
    expect(fromPath.graph.certificatePath).toBe('/etc/graph.pem');
  });

  it('does not echo an unresolved certificate setting in its error', () => {
    const value = '@Microsoft.KeyVault(VaultName=kv-secretive;SecretName=graph-client)';
    expect(() =>
      loadSettings({ ...base, GRAPH_CREDENTIAL: 'certificate', GRAPH_CLIENT_ID: 'c', GRAPH_CERTIFICATE: value }),
    ).toThrow(/GRAPH_CERTIFICATE/);
    try {
      loadSettings({ ...base, GRAPH_CREDENTIAL: 'certificate', GRAPH_CLIENT_ID: 'c', GRAPH_CERTIFICATE: value });
    } catch (e) {
      expect((e as Error).message).not.toContain('kv-secretive');
    }
  });
});

describe('If-Match', () => {
  it('accepts the weak tag as returned, the strong form, lists and *', () => {
    expect(() => checkIfMatch('W/"3"', 3)).not.toThrow();
    expect(() => checkIfMatch('"3"', 3)).not.toThrow();
    expect(() => checkIfMatch('W/"1", W/"3"', 3)).not.toThrow();
    expect(() => checkIfMatch('*', 9)).not.toThrow();
    expect(() => checkIfMatch(null, 9)).not.toThrow();
  });
  it('answers 412 for another version', () => {
    expect(() => checkIfMatch('W/"2"', 3)).toThrow(expect.objectContaining({ status: 412 }));
  });
});

describe('rate limiter', () => {
  it('allows a burst, then asks to wait, then refills', () => {
    let now = 0;
    const limiter = new RateLimiter(2, 2, () => now);
    expect(limiter.take('a')).toBe(0);
    expect(limiter.take('a')).toBe(0);
    expect(limiter.take('a')).toBeGreaterThanOrEqual(1);
    expect(limiter.take('b')).toBe(0);
    now += 1000;
    expect(limiter.take('a')).toBe(0);
  });
});
