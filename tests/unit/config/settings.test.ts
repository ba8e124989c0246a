import { ConfigError, loadSettings } from '../../../lib/config/settings';
import { checkIfMatch } from '../../../lib/scim/ifMatch';
import { RateLimiter } from '../../../lib/limits/rateLimiter';

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

  it('bounds every GraphQL body to 8 MiB, 250,000 JSON values and 64 levels; a tenant holds at most a quarter of the body budget', () => {
    const s = loadSettings(base);
    expect(s.graphqlMaxBodyBytes).toBe(8 * 1024 * 1024);
    expect(s.graphqlMaxJsonValues).toBe(250_000);
    expect(s.graphqlMaxJsonDepth).toBe(64);
    expect(s.graphqlBodyBytesInFlight).toBe(8 * s.graphqlMaxBodyBytes);
    expect(s.graphqlTenantBodyBytesInFlight).toBe(s.graphqlBodyBytesInFlight / 4);
    expect(() => loadSettings({ ...base, GRAPHQL_MAX_BODY_BYTES: String(16 * 1024 * 1024 + 1) })).toThrow(
      /GRAPHQL_MAX_BODY_BYTES must be between/,
    );
  });

  it.each([
    [{ COSMOS_ENDPOINT: 'https://x' }, 'PUBLIC_BASE_URL'],
    [{ ...base, COSMOS_ENDPOINT: 'not a url' }, 'COSMOS_ENDPOINT'],
    [{ ...base, RETENTION_INACTIVE_DAYS: 'ninety' }, 'RETENTION_INACTIVE_DAYS'],
    [{ ...base, GRAPHQL_INTROSPECTION: 'maybe' }, 'GRAPHQL_INTROSPECTION'],
    [{ ...base, GRAPH_CREDENTIAL: 'clientSecret' }, 'GRAPH_CLIENT_ID'],
    [{ ...base, IMPORT_MAX_DELETE_RATIO: '2' }, 'IMPORT_MAX_DELETE_RATIO'],
    // The largest body must fit in a tenant's share, and no tenant's share may be the whole budget.
    [{ ...base, GRAPHQL_TENANT_BODY_BYTES_IN_FLIGHT: String(4 * 1024 * 1024) }, 'GRAPHQL_TENANT_BODY_BYTES_IN_FLIGHT'],
    [{ ...base, GRAPHQL_BODY_BYTES_IN_FLIGHT: String(24 * 1024 * 1024) }, 'GRAPHQL_BODY_BYTES_IN_FLIGHT'],
    [{ ...base, BULK_REQUEST_UNITS_PER_SECOND_PER_TENANT: '0' }, 'BULK_REQUEST_UNITS_PER_SECOND_PER_TENANT'],
    [{ ...base, BULK_REQUEST_UNITS_PER_SECOND: '1000' }, 'BULK_REQUEST_UNITS_PER_SECOND_PER_TENANT'],
    [{ ...base, COSMOS_THROUGHPUT_MODE: 'provisioned-ish' }, 'COSMOS_THROUGHPUT_MODE'],
    [{ ...base, FLEET_LEASE_RENEW_MS: '2000', FLEET_LEASE_MS: '3000' }, 'FLEET_LEASE_MS'],
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

  it('reads GRAPHQL_CORS_ORIGINS as a list of origins, empty by default; refuses anything else without echoing it', () => {
    expect(loadSettings(base).graphqlCorsOrigins).toEqual([]);
    expect(
      loadSettings({
        ...base,
        GRAPHQL_CORS_ORIGINS: 'https://a.example.org, http://localhost:5173/ https://B.example.org:8443',
      }).graphqlCorsOrigins,
    ).toEqual(['https://a.example.org', 'http://localhost:5173', 'https://b.example.org:8443']);
    for (const bad of [
      '*',
      'https://a.example.org/path',
      'a.example.org',
      'ftp://a.example.org',
      'https://u:p@a.example.org',
      'https://a.example.org?x=0101901234',
    ]) {
      let err: unknown;
      try {
        loadSettings({ ...base, GRAPHQL_CORS_ORIGINS: bad });
      } catch (e) {
        err = e;
      }
      expect((err as ConfigError).setting).toBe('GRAPHQL_CORS_ORIGINS');
      expect((err as Error).message).not.toContain(bad);
    }
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

describe('SCIM budgets per tenant', () => {
  it('default to twice the per-integration ones, and follow them', () => {
    const s = loadSettings(base);
    expect([s.scimTenantRateLimitPerSecond, s.scimTenantMaxRequestsInFlight, s.scimMaxIntegrationsPerTenant]).toEqual([
      100, 64, 20,
    ]);
    const raised = loadSettings({ ...base, SCIM_RATE_LIMIT_PER_SECOND: '100000', MAX_REQUESTS_IN_FLIGHT: '100' });
    expect([raised.scimTenantRateLimitPerSecond, raised.scimTenantMaxRequestsInFlight]).toEqual([200000, 200]);
    const set = loadSettings({
      ...base,
      SCIM_RATE_LIMIT_PER_SECOND: '20',
      SCIM_TENANT_RATE_LIMIT_PER_SECOND: '20',
      SCIM_TENANT_MAX_REQUESTS_IN_FLIGHT: '40',
      SCIM_MAX_INTEGRATIONS_PER_TENANT: '3',
    });
    expect([
      set.scimTenantRateLimitPerSecond,
      set.scimTenantMaxRequestsInFlight,
      set.scimMaxIntegrationsPerTenant,
    ]).toEqual([20, 40, 3]);
  });

  it.each([
    [
      { SCIM_RATE_LIMIT_PER_SECOND: '50', SCIM_TENANT_RATE_LIMIT_PER_SECOND: '49' },
      'SCIM_TENANT_RATE_LIMIT_PER_SECOND',
    ],
    [{ SCIM_TENANT_MAX_REQUESTS_IN_FLIGHT: '31' }, 'SCIM_TENANT_MAX_REQUESTS_IN_FLIGHT'],
    [{ SCIM_MAX_INTEGRATIONS_PER_TENANT: '0' }, 'SCIM_MAX_INTEGRATIONS_PER_TENANT'],
  ])("refuses a tenant bound below its integrations' (%#), naming it", (env, name) => {
    expect(() => loadSettings({ ...base, ...env })).toThrow(expect.objectContaining({ setting: name }));
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

describe('the bulk budgets follow the account mode', () => {
  it('takes the serverless defaults unless the account is autoscale; a set value wins in either mode', () => {
    expect(loadSettings(base)).toMatchObject({
      cosmosThroughputMode: 'serverless',
      bulkRequestUnitsPerSecondPerTenant: 2_000,
      bulkRequestUnitsPerSecond: 2_500,
      fleetLeaseRenewMs: 1_000,
      fleetLeaseMs: 3_000,
    });
    expect(loadSettings({ ...base, COSMOS_THROUGHPUT_MODE: 'autoscale' })).toMatchObject({
      bulkRequestUnitsPerSecondPerTenant: 1_600,
      bulkRequestUnitsPerSecond: 2_000,
    });
    expect(
      loadSettings({ ...base, COSMOS_THROUGHPUT_MODE: 'autoscale', BULK_REQUEST_UNITS_PER_SECOND: '9000' }),
    ).toMatchObject({ bulkRequestUnitsPerSecondPerTenant: 1_600, bulkRequestUnitsPerSecond: 9_000 });
  });
});
