/**
 * Every setting the service reads, from the environment, validated once.
 * A bad or missing setting fails at start with a message naming it.
 */
import { isProduction, productionRefusal } from './productionSafety';

import type { Settings } from './settingsShape';

export type { Settings };

export class ConfigError extends Error {
  constructor(
    readonly setting: string,
    problem: string,
  ) {
    super(`Setting ${setting} ${problem}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

function optional(env: Env, name: string): string | undefined {
  const v = env[name]?.trim();
  return v ? v : undefined;
}

/** The row of a setting in SETTINGS; a name the table does not hold is a mistake in this file. */
function rowOf(name: string): SettingDescription {
  const row = SETTINGS.find((r) => r.name === name);
  if (!row) throw new Error(`Setting ${name} has no row in SETTINGS`);
  return row;
}

function parseOf<T extends SettingParse['type']>(name: string, type: T): Extract<SettingParse, { type: T }> {
  const parse = rowOf(name).parse;
  if (parse?.type !== type) throw new Error(`Setting ${name} is not read as ${type} in SETTINGS`);
  return parse as Extract<SettingParse, { type: T }>;
}

/** A text setting with a default in the table. */
function text(env: Env, name: string): string {
  return optional(env, name) ?? parseOf(name, 'text').default;
}

function url(env: Env, name: string): string {
  const parse = rowOf(name).parse;
  const raw = optional(env, name) ?? (parse?.type === 'url' ? parse.default : undefined);
  if (raw === undefined) throw new ConfigError(name, 'is required but not set');
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, 'must be an absolute URL');
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')
    throw new ConfigError(name, 'must be an http(s) URL');
  return raw.replace(/\/+$/, '');
}

/** A whole number within the table's bounds; unset, the table's default (or twice another setting's value). */
function integer(env: Env, name: string, mode?: CosmosThroughputMode): number {
  const { default: fallback, min, max, autoscaleDefault } = parseOf(name, 'integer');
  const raw = optional(env, name);
  if (raw === undefined && mode === 'autoscale' && autoscaleDefault !== undefined) return autoscaleDefault;
  if (raw === undefined) return typeof fallback === 'number' ? fallback : 2 * integer(env, fallback.twice);
  if (!/^-?\d+$/.test(raw)) throw new ConfigError(name, 'must be a whole number');
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(name, `must be between ${min} and ${max}`);
  return n;
}

function bool(env: Env, name: string): boolean {
  const raw = optional(env, name)?.toLowerCase();
  if (raw === undefined) return parseOf(name, 'boolean').default;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new ConfigError(name, 'must be true or false');
}

/** One of `allowed` (the list the table's row holds), case-insensitive; unset, the table's default. */
function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[]): T {
  const parse = parseOf(name, 'oneOf');
  if (parse.allowed !== allowed) throw new Error(`Setting ${name} is read with another list than its row's`);
  const raw = optional(env, name) ?? parse.default;
  const hit = allowed.find((a) => a.toLowerCase() === raw.toLowerCase());
  if (!hit) throw new ConfigError(name, `must be one of ${allowed.join(', ')}`);
  return hit;
}

function ratio(env: Env, name: string): number | undefined {
  const raw = optional(env, name);
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0 || n > 1) throw new ConfigError(name, 'must be a number in (0, 1]');
  return n;
}

/**
 * A list of browser origins (`https://host[:port]`, separated by commas or spaces); empty when unset. In
 * production only https origins; never `*`, a path, a query or credentials.
 */
function origins(env: Env, name: string, production: boolean): string[] {
  const raw = optional(env, name);
  if (raw === undefined) return [];
  return raw
    .split(/[\s,]+/)
    .filter(Boolean)
    .map((item) => {
      let parsed: URL;
      try {
        parsed = new URL(item);
      } catch {
        throw new ConfigError(name, 'must list origins such as https://admin.example.com, separated by commas');
      }
      const bare = parsed.origin === item.replace(/\/$/, '').toLowerCase();
      if (!bare || (parsed.protocol !== 'https:' && parsed.protocol !== 'http:'))
        throw new ConfigError(name, 'must list origins only (scheme, host and port; no path, no *)');
      if (production && parsed.protocol !== 'https:')
        throw new ConfigError(name, 'must list https origins in production');
      return parsed.origin;
    });
}

/** The local stack's audience; any application in any tenant can claim it, so Azure refuses it. */
export const LOCAL_APP_ID_URI = 'api://business-identity-service';

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * True when the process runs on the Azure Functions / App Service platform: the platform sets WEBSITE_SITE_NAME
 * (the app's name, read-only) on every instance; Core Tools, the dev host and the tests do not, and
 * local.settings.sample.json must not either. WEBSITE_INSTANCE_ID (which instance this is) does not decide it:
 * the local stack's instances carry one each (`npm start -- --instances N`), as Azure's do.
 */
export function hostedInAzure(env: Env): boolean {
  return optional(env, 'WEBSITE_SITE_NAME') !== undefined;
}

/**
 * An App ID URI that Entra lets only one application use: api://<GUID>[/…] (app id or tenant id) or a
 * URI on a domain (api://contoso.com/…, https://contoso.com/…; Entra requires it to be a verified domain).
 */
function tenantUnique(uri: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(uri);
  } catch {
    return false;
  }
  if (parsed.protocol === 'api:') return GUID.test(parsed.hostname) || parsed.hostname.includes('.');
  return parsed.protocol === 'https:' && parsed.hostname.includes('.');
}

function audiences(env: Env, inAzure: boolean): string[] {
  const configuredUri = optional(env, 'SERVICE_APP_ID_URI');
  const clientId = optional(env, 'SERVICE_CLIENT_ID');
  if (!inAzure) {
    const uri = configuredUri ?? LOCAL_APP_ID_URI;
    return clientId ? [uri, clientId] : [uri];
  }
  if (!clientId)
    throw new ConfigError(
      'SERVICE_CLIENT_ID',
      'is required in Azure and production: v2.0 tokens carry the client id as audience',
    );
  if (!GUID.test(clientId)) throw new ConfigError('SERVICE_CLIENT_ID', 'must be the application (client) id, a GUID');
  if (configuredUri === undefined) return [clientId];
  if (configuredUri.toLowerCase() === LOCAL_APP_ID_URI) {
    throw new ConfigError(
      'SERVICE_APP_ID_URI',
      'is the local stack default, which any application can claim; leave it empty in Azure or set a tenant-unique App ID URI',
    );
  }
  if (!tenantUnique(configuredUri)) {
    throw new ConfigError(
      'SERVICE_APP_ID_URI',
      'must be tenant-unique in Azure (api://<app or tenant id>/…, or a URI on a verified domain), or empty',
    );
  }
  return [clientId, configuredUri];
}

function consoleApiScope(env: Env): string {
  const uri = optional(env, 'SERVICE_APP_ID_URI');
  const clientId = optional(env, 'SERVICE_CLIENT_ID');
  // Entra accepts the application id as the resource of a scope, whatever its App ID URI is.
  return `${uri ?? clientId ?? LOCAL_APP_ID_URI}/Console.Admin`;
}

export function loadSettings(env: Env = process.env): Settings {
  // Production (Azure, or NODE_ENV=production) fails closed: see productionSafety.
  const inAzure = isProduction(env, hostedInAzure(env));
  const graphCredential = oneOf(env, 'GRAPH_CREDENTIAL', GRAPH_CREDENTIALS);
  const cosmosThroughputMode = oneOf(env, 'COSMOS_THROUGHPUT_MODE', COSMOS_THROUGHPUT_MODES);
  const settings: Settings = {
    publicBaseUrl: url(env, 'PUBLIC_BASE_URL'),
    cosmos: {
      endpoint: url(env, 'COSMOS_ENDPOINT'),
      key: optional(env, 'COSMOS_KEY'),
      database: text(env, 'COSMOS_DATABASE'),
    },
    fieldEncryption: {
      keyVaultUrl: optional(env, 'KEY_VAULT_URL') === undefined ? undefined : url(env, 'KEY_VAULT_URL'),
      keyName: text(env, 'FIELD_ENCRYPTION_KEY_NAME'),
      keyCacheSeconds: integer(env, 'FIELD_KEY_CACHE_SECONDS'),
    },
    auth: {
      authority: url(env, 'AUTH_AUTHORITY'),
      audiences: audiences(env, inAzure),
      requireTokenType: !bool(env, 'AUTH_ALLOW_UNTYPED_TOKENS'),
    },
    graph: {
      baseUrl: url(env, 'GRAPH_BASE_URL'),
      credential: graphCredential,
      clientId: optional(env, 'GRAPH_CLIENT_ID'),
      managedIdentityClientId: optional(env, 'GRAPH_MANAGED_IDENTITY_CLIENT_ID'),
      clientSecret: optional(env, 'GRAPH_CLIENT_SECRET'),
      certificate: optional(env, 'GRAPH_CERTIFICATE'),
      certificatePath: optional(env, 'GRAPH_CERTIFICATE_PATH'),
    },
    retentionInactiveDays: integer(env, 'RETENTION_INACTIVE_DAYS'),
    scimRateLimitPerSecond: integer(env, 'SCIM_RATE_LIMIT_PER_SECOND'),
    scimTenantRateLimitPerSecond: integer(env, 'SCIM_TENANT_RATE_LIMIT_PER_SECOND'),
    scimTenantMaxRequestsInFlight: integer(env, 'SCIM_TENANT_MAX_REQUESTS_IN_FLIGHT'),
    scimMaxIntegrationsPerTenant: integer(env, 'SCIM_MAX_INTEGRATIONS_PER_TENANT'),
    scimMaxBodyBytes: integer(env, 'SCIM_MAX_BODY_BYTES'),
    graphqlMaxBodyBytes: integer(env, 'GRAPHQL_MAX_BODY_BYTES'),
    graphqlMaxJsonValues: integer(env, 'GRAPHQL_MAX_JSON_VALUES'),
    graphqlMaxJsonDepth: integer(env, 'GRAPHQL_MAX_JSON_DEPTH'),
    graphqlMaxQueryBytes: integer(env, 'GRAPHQL_MAX_QUERY_BYTES'),
    graphqlIntrospection: bool(env, 'GRAPHQL_INTROSPECTION'),
    graphqlCorsOrigins: origins(env, 'GRAPHQL_CORS_ORIGINS', inAzure),
    graphqlBodyBytesInFlight: integer(env, 'GRAPHQL_BODY_BYTES_IN_FLIGHT'),
    graphqlTenantBodyBytesInFlight: integer(env, 'GRAPHQL_TENANT_BODY_BYTES_IN_FLIGHT'),
    maxRequestsInFlight: integer(env, 'MAX_REQUESTS_IN_FLIGHT'),
    graphqlRequestsPerMinute: integer(env, 'GRAPHQL_REQUESTS_PER_MINUTE'),
    bulkItemsPerMinute: integer(env, 'BULK_ITEMS_PER_MINUTE'),
    cosmosThroughputMode,
    bulkRequestUnitsPerSecondPerTenant: integer(env, 'BULK_REQUEST_UNITS_PER_SECOND_PER_TENANT', cosmosThroughputMode),
    bulkRequestUnitsPerSecond: integer(env, 'BULK_REQUEST_UNITS_PER_SECOND', cosmosThroughputMode),
    fleetLeaseRenewMs: integer(env, 'FLEET_LEASE_RENEW_MS'),
    fleetLeaseMs: integer(env, 'FLEET_LEASE_MS'),
    importMaxDeleteRatio: ratio(env, 'IMPORT_MAX_DELETE_RATIO'),
    importMaxIdentities: integer(env, 'IMPORT_MAX_IDENTITIES'),
    importPartMaxIdentities: integer(env, 'IMPORT_PART_MAX_IDENTITIES'),
    stagedImportTtlSeconds: integer(env, 'STAGED_IMPORT_TTL_SECONDS'),
    importStepMaxWrites: integer(env, 'IMPORT_STEP_MAX_WRITES'),
    importStepMaxKeys: integer(env, 'IMPORT_STEP_MAX_KEYS'),
    importMaxOpenPerTenant: integer(env, 'IMPORT_MAX_OPEN_PER_TENANT'),
    importMaxDryRunsPerTenant: integer(env, 'IMPORT_MAX_DRY_RUNS_PER_TENANT'),
    backgroundUnitsPerInstance: integer(env, 'BACKGROUND_UNITS_PER_INSTANCE'),
    associationMaxPairs: integer(env, 'ASSOCIATION_MAX_PAIRS'),
    activity: {
      retentionDays: integer(env, 'ACTIVITY_RETENTION_DAYS'),
      refusalsPerMinute: integer(env, 'ACTIVITY_REFUSALS_PER_MINUTE'),
      tenantRefusalsPerMinute: integer(env, 'ACTIVITY_TENANT_REFUSALS_PER_MINUTE'),
    },
    pendingLinkBackoff: {
      baseSeconds: integer(env, 'PENDING_LINK_BACKOFF_SECONDS'),
      maxSeconds: integer(env, 'PENDING_LINK_BACKOFF_MAX_SECONDS'),
    },
    backgroundQueue: {
      connectionString: optional(env, 'BACKGROUND_QUEUE'),
      queueServiceUri:
        optional(env, 'BACKGROUND_QUEUE__queueServiceUri') === undefined
          ? undefined
          : url(env, 'BACKGROUND_QUEUE__queueServiceUri'),
    },
    metrics: { resourceId: optional(env, 'METRICS_RESOURCE_ID'), region: optional(env, 'METRICS_REGION') },
    logLevel: oneOf(env, 'LOG_LEVEL', LOG_LEVELS),
    console: {
      clientId: optional(env, 'CONSOLE_CLIENT_ID'),
      apiScope: consoleApiScope(env),
      authorityTenant: text(env, 'CONSOLE_AUTHORITY_TENANT'),
    },
  };
  // A set of any size arrives in parts, each taking its identities from the budget (at most the whole
  // budget, so a part is never refused for good); an association list is refused beyond ASSOCIATION_MAX_PAIRS.
  if (settings.bulkItemsPerMinute < settings.associationMaxPairs) {
    throw new ConfigError(
      'BULK_ITEMS_PER_MINUTE',
      'must be at least ASSOCIATION_MAX_PAIRS: the largest association request must fit in a minute',
    );
  }
  if (settings.scimTenantRateLimitPerSecond < settings.scimRateLimitPerSecond) {
    throw new ConfigError(
      'SCIM_TENANT_RATE_LIMIT_PER_SECOND',
      "must be at least SCIM_RATE_LIMIT_PER_SECOND: a tenant's budget holds each of its integrations'",
    );
  }
  if (settings.scimTenantMaxRequestsInFlight < settings.maxRequestsInFlight) {
    throw new ConfigError(
      'SCIM_TENANT_MAX_REQUESTS_IN_FLIGHT',
      "must be at least MAX_REQUESTS_IN_FLIGHT: a tenant's bound holds each of its integrations'",
    );
  }
  if (settings.graphqlTenantBodyBytesInFlight < settings.graphqlMaxBodyBytes) {
    throw new ConfigError(
      'GRAPHQL_TENANT_BODY_BYTES_IN_FLIGHT',
      "must be at least GRAPHQL_MAX_BODY_BYTES: the largest body must fit in a tenant's share",
    );
  }
  if (settings.bulkRequestUnitsPerSecondPerTenant > settings.bulkRequestUnitsPerSecond) {
    throw new ConfigError(
      'BULK_REQUEST_UNITS_PER_SECOND_PER_TENANT',
      'must be at most BULK_REQUEST_UNITS_PER_SECOND: one tenant cannot have more than all tenants together',
    );
  }
  if (settings.fleetLeaseMs < 2 * settings.fleetLeaseRenewMs) {
    throw new ConfigError(
      'FLEET_LEASE_MS',
      'must be at least twice FLEET_LEASE_RENEW_MS: a lease must outlive a renewal that comes late',
    );
  }
  if (settings.graphqlBodyBytesInFlight < 2 * settings.graphqlTenantBodyBytesInFlight) {
    throw new ConfigError(
      'GRAPHQL_BODY_BYTES_IN_FLIGHT',
      'must be at least twice GRAPHQL_TENANT_BODY_BYTES_IN_FLIGHT: one tenant must never hold the whole budget',
    );
  }
  if (settings.graph.credential === 'clientSecret') {
    if (!settings.graph.clientId)
      throw new ConfigError('GRAPH_CLIENT_ID', 'is required when GRAPH_CREDENTIAL is clientSecret');
    if (!settings.graph.clientSecret)
      throw new ConfigError('GRAPH_CLIENT_SECRET', 'is required when GRAPH_CREDENTIAL is clientSecret');
  }
  if (settings.graph.credential === 'managedIdentity' && inAzure) {
    if (!settings.graph.clientId)
      throw new ConfigError('GRAPH_CLIENT_ID', 'is required when GRAPH_CREDENTIAL is managedIdentity');
    if (!settings.graph.managedIdentityClientId) {
      throw new ConfigError(
        'GRAPH_MANAGED_IDENTITY_CLIENT_ID',
        'is required when GRAPH_CREDENTIAL is managedIdentity: the client id of the user-assigned identity the template creates',
      );
    }
  }
  if (settings.graph.credential === 'certificate') {
    if (!settings.graph.clientId)
      throw new ConfigError('GRAPH_CLIENT_ID', 'is required when GRAPH_CREDENTIAL is certificate');
    if (!settings.graph.certificate && !settings.graph.certificatePath) {
      throw new ConfigError(
        'GRAPH_CERTIFICATE',
        'or GRAPH_CERTIFICATE_PATH is required when GRAPH_CREDENTIAL is certificate',
      );
    }
    if (settings.graph.certificate && !settings.graph.certificate.includes('-----BEGIN')) {
      throw new ConfigError(
        'GRAPH_CERTIFICATE',
        'must be a PEM (certificate and private key); in Azure it is a Key Vault reference to a certificate created with content type PEM',
      );
    }
  }
  if (inAzure) {
    const refusal = productionRefusal(settings);
    if (refusal) throw new ConfigError(...refusal);
  }
  return settings;
}

/** Where a setting is read: by the service (in Azure, locally, or both), or by the local stack only. */
export type SettingScope = 'Azure and local' | 'Azure' | 'local' | 'local stack';

/**
 * How a setting is read, with its default and bounds: loadSettings reads them from here, and the docs show the
 * default. An integer's default may be twice another setting's value, so the two follow each other.
 */
export type SettingParse =
  | {
      type: 'integer';
      default: number | { twice: string };
      min: number;
      max: number;
      note?: string;
      /** The default on an autoscale (provisioned) account, when it differs (COSMOS_THROUGHPUT_MODE). */
      autoscaleDefault?: number;
    }
  | { type: 'boolean'; default: boolean }
  | { type: 'oneOf'; allowed: readonly string[]; default: string }
  | { type: 'text'; default: string }
  | { type: 'url'; default: string };

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export const GRAPH_CREDENTIALS = ['clientSecret', 'certificate', 'managedIdentity'] as const;
export const COSMOS_THROUGHPUT_MODES = ['serverless', 'autoscale'] as const;
export type CosmosThroughputMode = (typeof COSMOS_THROUGHPUT_MODES)[number];

export interface SettingDescription {
  name: string;
  /** How the service reads it, with its default (the docs show that default). */
  parse?: SettingParse;
  /** The default as a reader sees it, for a setting without one in `parse` (a word in parentheses, …). */
  default?: string;
  meaning: string;
  appliesTo: SettingScope;
  /**
   * Set on the Function App by the template itself (`infra/modules/functionapp.bicep`, derived or tunable).
   * Every other setting the service reads in Azure is deployed through the EXTRA_APP_SETTINGS azd value
   * (docs/operations.md); tests/unit/infra checks both.
   */
  deployed: boolean;
}

/**
 * Every setting the service and the local stack read, one row each: docs/configuration.md is rendered from
 * this table (`npm run docs:config`) and the infrastructure test checks every deployed one is set.
 */
export const SETTINGS: readonly SettingDescription[] = [
  {
    name: 'PUBLIC_BASE_URL',
    default: '(required)',
    meaning: 'base URL of the service; used in `scimEndpoint` and `meta.location`',
    appliesTo: 'Azure and local',
    deployed: true,
  },
  {
    name: 'COSMOS_ENDPOINT',
    default: '(required)',
    meaning: 'Cosmos DB account endpoint',
    appliesTo: 'Azure and local',
    deployed: true,
  },
  {
    name: 'COSMOS_KEY',
    default: '(none)',
    meaning: 'account key; leave empty in Azure to use the managed identity',
    appliesTo: 'Azure and local',
    deployed: true,
  },
  {
    name: 'COSMOS_DATABASE',
    parse: { type: 'text', default: 'business-identities' },
    meaning: 'database name',
    appliesTo: 'Azure and local',
    deployed: true,
  },
  {
    name: 'KEY_VAULT_URL',
    default: '(none; required in production)',
    meaning:
      "Key Vault holding the key that wraps every tenant's data key (personal and document numbers are stored encrypted, docs/security.md). Without it (local only) numbers are stored as sent; the local stack sets its stand-in",
    appliesTo: 'Azure and local',
    deployed: true,
  },
  {
    name: 'FIELD_ENCRYPTION_KEY_NAME',
    parse: { type: 'text', default: 'field-encryption' },
    meaning:
      'name of the RSA key in KEY_VAULT_URL that wraps the data keys (RSA-OAEP-256; its newest version wraps new ones)',
    appliesTo: 'Azure and local',
    deployed: true,
  },
  {
    name: 'FIELD_KEY_CACHE_SECONDS',
    parse: { type: 'integer', default: 300, min: 1, max: 3600 },
    meaning:
      "how long an instance keeps a tenant's unwrapped data key in memory: the most a removed key (`forget-tenant-key`) stays usable, and how often Key Vault is asked per tenant and instance",
    appliesTo: 'Azure and local',
    deployed: false,
  },
  {
    name: 'AUTH_AUTHORITY',
    parse: { type: 'url', default: 'https://login.microsoftonline.com' },
    meaning: 'token issuer authority (`<authority>/<tenant>/v2.0`)',
    appliesTo: 'Azure and local',
    deployed: true,
  },
  {
    name: 'AUTH_ALLOW_UNTYPED_TOKENS',
    parse: { type: 'boolean', default: false },
    meaning:
      'accept a token without `idtyp` (telling app from user by `scp`, as before the claim existed); off, such a token is refused `401`. For a development identity provider that cannot send the claim; refused in production',
    appliesTo: 'local',
    deployed: false,
  },
  {
    name: 'SERVICE_APP_ID_URI',
    default: 'local: `api://business-identity-service`; Azure: (none)',
    meaning:
      'accepted token audience besides the client id. In Azure only a tenant-unique URI (`api://<app or tenant id>/…`, or a verified domain) and only when set; the service refuses to start with `api://business-identity-service` there',
    appliesTo: 'Azure and local',
    deployed: true,
  },
  {
    name: 'SERVICE_CLIENT_ID',
    default: '(none; required in Azure)',
    meaning:
      "the service application's client id, the `aud` of every v2.0 token; in Azure the audience that is always accepted",
    appliesTo: 'Azure and local',
    deployed: true,
  },
  {
    name: 'GRAPH_BASE_URL',
    parse: { type: 'url', default: 'https://graph.microsoft.com' },
    meaning: 'Microsoft Graph',
    appliesTo: 'Azure and local',
    deployed: true,
  },
  {
    name: 'GRAPH_CREDENTIAL',
    parse: { type: 'oneOf', allowed: GRAPH_CREDENTIALS, default: 'managedIdentity' },
    meaning: '`managedIdentity` (federated client assertion), `certificate`, or `clientSecret` (local)',
    appliesTo: 'Azure and local',
    deployed: true,
  },
  {
    name: 'GRAPH_CLIENT_ID',
    default: '(none)',
    meaning: "the service's multi-tenant application id",
    appliesTo: 'Azure and local',
    deployed: true,
  },
  {
    name: 'GRAPH_MANAGED_IDENTITY_CLIENT_ID',
    default: '(none; required in Azure in `managedIdentity` mode)',
    meaning:
      "client id of the user-assigned managed identity that is the application's federated credential (`ManagedIdentityCredential({ clientId })`, for Graph only)",
    appliesTo: 'Azure',
    deployed: true,
  },
  { name: 'GRAPH_CLIENT_SECRET', default: '(none)', meaning: 'local stack only', appliesTo: 'local', deployed: true },
  {
    name: 'GRAPH_CERTIFICATE',
    default: '(none)',
    meaning:
      '`certificate` mode: the PEM (private key and certificate); in Azure a Key Vault reference to the certificate',
    appliesTo: 'Azure and local',
    deployed: true,
  },
  {
    name: 'GRAPH_CERTIFICATE_PATH',
    default: '(none)',
    meaning: '`certificate` mode on hosts that can place the PEM on disk (instead of `GRAPH_CERTIFICATE`)',
    appliesTo: 'Azure and local',
    deployed: true,
  },
  {
    name: 'RETENTION_INACTIVE_DAYS',
    parse: { type: 'integer', default: 90, min: 0, max: 3650 },
    meaning: 'days inactive before personal numbers and document references are deleted',
    appliesTo: 'Azure and local',
    deployed: true,
  },
  {
    name: 'RETENTION_SCHEDULE',
    default: '`0 0 2 * * *`',
    meaning: 'NCRONTAB of the retention timer',
    appliesTo: 'Azure and local',
    deployed: true,
  },
  {
    name: 'RESOLVE_PENDING_LINKS_SCHEDULE',
    default: '`0 */5 * * * *`',
    meaning: 'NCRONTAB of the pending-link timer',
    appliesTo: 'Azure and local',
    deployed: true,
  },
  {
    name: 'PENDING_LINK_BACKOFF_SECONDS',
    parse: { type: 'integer', default: 300, min: 0, max: 86_400 },
    meaning:
      'wait after the first unchanged check of a pending/conflict identity; doubles with each further one (`0` = no back-off)',
    appliesTo: 'Azure and local',
    deployed: true,
  },
  {
    name: 'PENDING_LINK_BACKOFF_MAX_SECONDS',
    parse: { type: 'integer', default: 14_400, min: 0, max: 7 * 86_400 },
    meaning: 'longest wait between checks of one identity',
    appliesTo: 'Azure and local',
    deployed: true,
  },
  {
    name: 'BACKGROUND_QUEUE__queueServiceUri',
    default: '(none; set in Azure)',
    meaning:
      'queue service of the storage account (identity-based connection of `backgroundWork` and of the planners, with `BACKGROUND_QUEUE__credential` = `managedidentity`)',
    appliesTo: 'Azure',
    deployed: true,
  },
  {
    name: 'BACKGROUND_QUEUE__credential',
    default: '(none; set in Azure)',
    meaning: "`managedidentity`: the queue connection above signs in with the app's managed identity",
    appliesTo: 'Azure',
    deployed: true,
  },
  {
    name: 'METRICS_RESOURCE_ID',
    default: '(none: logged only)',
    meaning:
      "resource id of the Application Insights component the background-queue measurement sends its metrics to (Azure Monitor custom metrics, with the app's identity: Monitoring Metrics Publisher); the stall and poison alerts read them",
    appliesTo: 'Azure',
    deployed: true,
  },
  {
    name: 'METRICS_REGION',
    default: '(none)',
    meaning: 'region of that component, e.g. `westeurope` (the custom-metrics endpoint is regional)',
    appliesTo: 'Azure',
    deployed: true,
  },
  {
    name: 'BACKGROUND_QUEUE',
    default: '(local stack: Azurite)',
    meaning: 'a connection string instead (local only; Azure uses the identity-based setting)',
    appliesTo: 'local',
    deployed: false,
  },
  {
    name: 'SCIM_RATE_LIMIT_PER_SECOND',
    parse: { type: 'integer', default: 50, min: 1, max: 100_000 },
    meaning:
      'SCIM requests per second per integration, for the whole fleet (each instance admits against its leased share; 429 beyond)',
    appliesTo: 'Azure and local',
    deployed: true,
  },
  {
    name: 'SCIM_TENANT_RATE_LIMIT_PER_SECOND',
    parse: { type: 'integer', default: { twice: 'SCIM_RATE_LIMIT_PER_SECOND' }, min: 1, max: 200_000 },
    meaning:
      "SCIM requests per second of all a tenant's integrations together (disabled and unknown ones too), for the whole fleet (bursts of twice that; 429 beyond): more integrations or more instances do not give a tenant more. At least `SCIM_RATE_LIMIT_PER_SECOND`",
    appliesTo: 'Azure and local',
    deployed: false,
  },
  {
    name: 'SCIM_TENANT_MAX_REQUESTS_IN_FLIGHT',
    parse: { type: 'integer', default: { twice: 'MAX_REQUESTS_IN_FLIGHT' }, min: 1, max: 2000 },
    meaning:
      "SCIM requests in progress at once of all a tenant's integrations together, per instance (429 with `Retry-After: 1` beyond). At least `MAX_REQUESTS_IN_FLIGHT`",
    appliesTo: 'Azure and local',
    deployed: false,
  },
  {
    name: 'SCIM_MAX_INTEGRATIONS_PER_TENANT',
    parse: { type: 'integer', default: 20, min: 1, max: 1000 },
    meaning:
      "SCIM integrations per tenant, disabled ones included (a disabled integration's requests still take from its tenant's budget): `createScimIntegration` beyond it answers `INTEGRATION_LIMIT_REACHED`",
    appliesTo: 'Azure and local',
    deployed: false,
  },
  {
    name: 'SCIM_MAX_BODY_BYTES',
    parse: { type: 'integer', default: 1024 * 1024, min: 1024, max: 100 * 1024 * 1024 },
    meaning: 'largest SCIM request body (413 beyond)',
    appliesTo: 'Azure and local',
    deployed: true,
  },
  {
    name: 'GRAPHQL_MAX_BODY_BYTES',
    parse: { type: 'integer', default: 8 * 1024 * 1024, min: 1024, max: 16 * 1024 * 1024, note: '(8 MiB)' },
    meaning:
      'largest GraphQL request body of an administrator: beyond it `413` `USE_STAGED_IMPORT` at once (a declared Content-Length over it unread, a body without one as soon as it passes it); larger sets go as a staged import. Requests without an administrator token are refused before the body is read. At most 8 MiB in production',
    appliesTo: 'Azure and local',
    deployed: true,
  },
  {
    name: 'GRAPHQL_MAX_JSON_VALUES',
    parse: { type: 'integer', default: 250_000, min: 100, max: 5_000_000 },
    meaning:
      'most JSON values (strings, numbers, literals, arrays, objects) in a GraphQL request body, counted as the body is read, before anything is parsed: beyond it `413` `USE_STAGED_IMPORT` at once. An import part of 2,000 identities with every field (a personal number, two documents) is 44,000 values and 0.9 MB; one request carries up to about 11,000 such identities',
    appliesTo: 'Azure and local',
    deployed: false,
  },
  {
    name: 'GRAPHQL_MAX_JSON_DEPTH',
    parse: { type: 'integer', default: 64, min: 8, max: 1000 },
    meaning:
      'deepest nesting of arrays and objects in a GraphQL request body, counted as the body is read: beyond it `413` `USE_STAGED_IMPORT` at once (an import is 7 deep)',
    appliesTo: 'Azure and local',
    deployed: false,
  },
  {
    name: 'GRAPHQL_MAX_QUERY_BYTES',
    parse: { type: 'integer', default: 64 * 1024, min: 1024, max: 1024 * 1024 },
    meaning:
      'largest GraphQL query text, apart from its variables (413 `QUERY_TOO_LARGE` as soon as the streamed text passes it)',
    appliesTo: 'Azure and local',
    deployed: true,
  },
  {
    name: 'GRAPHQL_BODY_BYTES_IN_FLIGHT',
    parse: { type: 'integer', default: 64 * 1024 * 1024, min: 2048, max: 4 * 1024 * 1024 * 1024, note: '(64 MiB)' },
    meaning:
      'GraphQL request body bytes an instance holds at once, all tenants together (a body is read whole, then parsed): eight bodies of the largest size; a request that would pass it is answered `SERVICE_BUSY` without being read further. At least twice `GRAPHQL_TENANT_BODY_BYTES_IN_FLIGHT`',
    appliesTo: 'Azure and local',
    deployed: false,
  },
  {
    name: 'GRAPHQL_TENANT_BODY_BYTES_IN_FLIGHT',
    parse: { type: 'integer', default: 16 * 1024 * 1024, min: 1024, max: 2 * 1024 * 1024 * 1024, note: '(16 MiB)' },
    meaning:
      "one tenant's share of `GRAPHQL_BODY_BYTES_IN_FLIGHT` (two bodies of the largest size; four tenants at their full share fit): a request beyond it is answered `SERVICE_BUSY` without being read further, so one tenant's bodies never fill the instance's budget. At least `GRAPHQL_MAX_BODY_BYTES`",
    appliesTo: 'Azure and local',
    deployed: false,
  },
  {
    name: 'MAX_REQUESTS_IN_FLIGHT',
    parse: { type: 'integer', default: 32, min: 1, max: 1000 },
    meaning:
      'requests in progress at once per SCIM integration and per tenant for GraphQL, on each instance (it protects the instance; 429 / `SERVICE_BUSY` beyond, with a retry hint)',
    appliesTo: 'Azure and local',
    deployed: true,
  },
  {
    name: 'GRAPHQL_REQUESTS_PER_MINUTE',
    parse: { type: 'integer', default: 600, min: 1, max: 1_000_000 },
    meaning:
      'GraphQL requests per tenant per minute, for the whole fleet (`SERVICE_BUSY` with `retryAfterSeconds` beyond)',
    appliesTo: 'Azure and local',
    deployed: true,
  },
  {
    name: 'BULK_ITEMS_PER_MINUTE',
    parse: { type: 'integer', default: 500_000, min: 1, max: 50_000_000 },
    meaning:
      'imported identities (one-request sets and staged parts) plus association pairs per tenant per minute, for the whole fleet (`SERVICE_BUSY` beyond); at least `ASSOCIATION_MAX_PAIRS`. An admission bound on what a request may submit: the store work itself is paced by the two settings below',
    appliesTo: 'Azure and local',
    deployed: true,
  },
  {
    name: 'COSMOS_THROUGHPUT_MODE',
    parse: { type: 'oneOf', allowed: COSMOS_THROUGHPUT_MODES, default: 'serverless' },
    meaning:
      "the Cosmos DB account's capacity mode, as the template created it (`cosmosThroughputMode`): `serverless` or `autoscale` (provisioned autoscale throughput). The defaults of the bulk budgets below follow it",
    appliesTo: 'Azure and local',
    deployed: true,
  },
  {
    name: 'BULK_REQUEST_UNITS_PER_SECOND_PER_TENANT',
    parse: { type: 'integer', default: 2_000, autoscaleDefault: 1_600, min: 1, max: 10_000_000 },
    meaning:
      "request units a second one tenant's bulk work (imports, associations, background units) may spend, for the whole fleet (each instance paces against its leased share), measured from the store's charges; halved while the store throttles (429) and recovered gradually. Default: two fifths of a container's most (serverless 5,000 RU/s; autoscale the template's 4,000 RU/s of a bulk container). At most `BULK_REQUEST_UNITS_PER_SECOND`. The local stack sets both in step with `DEV_COSMOS_RU_PER_SECOND` unless they are set (two fifths and half of it; unlimited without it)",
    appliesTo: 'Azure and local',
    deployed: false,
  },
  {
    name: 'BULK_REQUEST_UNITS_PER_SECOND',
    parse: { type: 'integer', default: 2_500, autoscaleDefault: 2_000, min: 1, max: 10_000_000 },
    meaning:
      "request units a second all tenants' bulk work together may spend, for the whole fleet (each instance paces against its leased share), shared equally among the tenants with bulk work at the moment. Default: half of a container's most (serverless 5,000 RU/s; autoscale the template's 4,000 RU/s of a bulk container), so SCIM and administrator requests keep the other half",
    appliesTo: 'Azure and local',
    deployed: false,
  },
  {
    name: 'FLEET_LEASE_RENEW_MS',
    parse: { type: 'integer', default: 1_000, min: 100, max: 30_000 },
    meaning:
      'how often an instance renews its lease on a share of a fleet budget it uses (SCIM, GraphQL, refusal and bulk budgets of a tenant, an integration or the service), in the background: one small store write per active key and instance each time (see security.md, "Budgets of the fleet")',
    appliesTo: 'Azure and local',
    deployed: false,
  },
  {
    name: 'FLEET_LEASE_MS',
    parse: { type: 'integer', default: 3_000, min: 200, max: 120_000 },
    meaning:
      "how long a lease on a share of a fleet budget lasts unrenewed: the other instances take over a stopped instance's share within it (and one renewal). At least twice `FLEET_LEASE_RENEW_MS`",
    appliesTo: 'Azure and local',
    deployed: false,
  },
  {
    name: 'CONSOLE_CLIENT_ID',
    default: '(none)',
    meaning:
      "client id of the administrator console's single-page application registration (without it `/console` explains that it is not set up)",
    appliesTo: 'Azure and local',
    deployed: true,
  },
  {
    name: 'CONSOLE_AUTHORITY_TENANT',
    parse: { type: 'text', default: 'organizations' },
    meaning:
      "the tenant segment of the console's sign-in authority: `organizations` (any work account) or one tenant id",
    appliesTo: 'Azure and local',
    deployed: true,
  },
  {
    name: 'GRAPHQL_INTROSPECTION',
    parse: { type: 'boolean', default: false },
    meaning:
      "introspection and GraphiQL (on in the local stack); a browser opening `/graphql` is sent to GraphiQL at `/console/graphiql.html`, served with the console's files under its CSP and signed in like the console; every query (introspection too) needs an administrator token",
    appliesTo: 'Azure and local',
    deployed: true,
  },
  {
    name: 'GRAPHQL_CORS_ORIGINS',
    default: '(none)',
    meaning:
      'browser origins (`https://host[:port]`, comma-separated) that may call `/graphql` from their pages (CORS); empty: same-origin only, as the console needs. Never `*`; https only in Azure',
    appliesTo: 'Azure and local',
    deployed: false,
  },
  {
    name: 'IMPORT_MAX_DELETE_RATIO',
    default: '(off)',
    meaning: 'refuse an import that would delete more than this share of the source',
    appliesTo: 'Azure and local',
    deployed: true,
  },
  {
    name: 'IMPORT_MAX_IDENTITIES',
    parse: { type: 'integer', default: 1_000_000, min: 1, max: 5_000_000 },
    meaning:
      "largest import set of a source, staged or in one request (`IMPORT_TOO_LARGE` beyond); at most 2,000,000 in production (a step of the job applying a set holds the source's manifest in memory: about 130 MB at 1,000,000, see imports.md)",
    appliesTo: 'Azure and local',
    deployed: true,
  },
  {
    name: 'IMPORT_PART_MAX_IDENTITIES',
    parse: { type: 'integer', default: 2_000, min: 1, max: 5_000 },
    meaning:
      'most identities one `addImportPart` may carry (`IMPORT_PART_TOO_LARGE` beyond; also refused when the part would be stored in more than 1.5 MB)',
    appliesTo: 'Azure and local',
    deployed: false,
  },
  {
    name: 'STAGED_IMPORT_TTL_SECONDS',
    parse: { type: 'integer', default: 24 * 3600, min: 1, max: 30 * 24 * 3600 },
    meaning:
      'how long a started import may take to be completed; after that it is gone (`IMPORT_NOT_FOUND`) and the store deletes its parts (time to live)',
    appliesTo: 'Azure and local',
    deployed: false,
  },
  {
    name: 'IMPORT_STEP_MAX_WRITES',
    parse: { type: 'integer', default: 20_000, min: 10, max: 100_000 },
    meaning:
      "identity writes (or deletions) one step of a staged import's job makes at most, one queue message each; fewer make shorter steps, more make fewer manifest loads",
    appliesTo: 'Azure and local',
    deployed: false,
  },
  {
    name: 'IMPORT_STEP_MAX_KEYS',
    parse: { type: 'integer', default: 200_000, min: 100, max: 2_000_000 },
    meaning:
      "externalIds one step of a staged import's job holds at most (of the set and of the source's manifest each): a larger set is checked, and its deletions found, one hash range of its keys per step, and an apply step reads the keys of half as many; bounds a job's memory whatever the size of its set",
    appliesTo: 'Azure and local',
    deployed: false,
  },
  {
    name: 'IMPORT_MAX_OPEN_PER_TENANT',
    parse: { type: 'integer', default: 10, min: 1, max: 1_000 },
    meaning:
      'staged imports (not dry runs) an organization may have started and not yet ended (open for parts, or applied by their job) at once; `startImport` beyond is refused with `IMPORT_LIMIT_REACHED`. Bounds the background work one organization can queue',
    appliesTo: 'Azure and local',
    deployed: false,
  },
  {
    name: 'IMPORT_MAX_DRY_RUNS_PER_TENANT',
    parse: { type: 'integer', default: 3, min: 1, max: 1_000 },
    meaning:
      'staged dry runs an organization may have started and not yet ended at once (they hold no source, so this is their only bound); `IMPORT_LIMIT_REACHED` beyond',
    appliesTo: 'Azure and local',
    deployed: false,
  },
  {
    name: 'BACKGROUND_UNITS_PER_INSTANCE',
    parse: { type: 'integer', default: 4, min: 1, max: 32 },
    meaning:
      "units of background work (queue messages: a step of an import's job, a tenant's links or retention) one instance runs at once, shared fairly among the tenants with work waiting; the others wait in the instance. Sized by memory: a step of a 1,000,000-identity job holds its manifest and planned writes (about 250 MB), so 4 fit a 2,048 MB Flex Consumption instance beside the HTTP functions",
    appliesTo: 'Azure and local',
    deployed: false,
  },
  {
    name: 'ASSOCIATION_MAX_PAIRS',
    parse: { type: 'integer', default: 20_000, min: 1, max: 5_000_000 },
    meaning:
      'largest association list per request (`ASSOCIATION_TOO_LARGE` beyond; send parts). 20,000 pairs of typical values are about 2 MB of JSON, well inside an 8 MiB request body',
    appliesTo: 'Azure and local',
    deployed: true,
  },
  {
    name: 'ACTIVITY_RETENTION_DAYS',
    parse: { type: 'integer', default: 30, min: 1, max: 3650 },
    meaning:
      "days a refused SCIM request stays in its integration's activity (`activity` query, the console's Activity page); the store's time to live removes it after that",
    appliesTo: 'Azure and local',
    deployed: false,
  },
  {
    name: 'ACTIVITY_REFUSALS_PER_MINUTE',
    parse: { type: 'integer', default: 60, min: 0, max: 100_000 },
    meaning:
      "refused SCIM requests recorded one by one per integration per minute on an instance (the tenant's bound below holds for the fleet); beyond it they are only counted, in one summary entry per minute, so a failing connector cannot fill the store (`0`: count them all)",
    appliesTo: 'Azure and local',
    deployed: false,
  },
  {
    name: 'ACTIVITY_TENANT_REFUSALS_PER_MINUTE',
    parse: { type: 'integer', default: 300, min: 0, max: 1_000_000 },
    meaning:
      'refused SCIM requests recorded one by one per tenant per minute, all its integrations (disabled ones too) together, for the whole fleet (each instance records its leased share); beyond it they are only counted, in one summary entry of the tenant per minute and instance, so a tenant with many integrations cannot fill the store either (`0`: count them all)',
    appliesTo: 'Azure and local',
    deployed: false,
  },
  {
    name: 'LOG_LEVEL',
    parse: { type: 'oneOf', allowed: LOG_LEVELS, default: 'info' },
    meaning: '`debug`, `info`, `warn`, `error`',
    appliesTo: 'Azure and local',
    deployed: true,
  },
  {
    name: 'DEV_COSMOS_DATA_DIR',
    default: '`.local/cosmos`',
    meaning: "folder of the local engine's data",
    appliesTo: 'local stack',
    deployed: false,
  },
  {
    name: 'DEV_COSMOS_IN_MEMORY',
    default: '`false`',
    meaning: '`true` (or `npm start -- --in-memory`) starts the engine empty and keeps nothing',
    appliesTo: 'local stack',
    deployed: false,
  },
  {
    name: 'DEV_COSMOS_RU_PER_SECOND',
    default: '(unlimited)',
    meaning:
      'request units per second per container of the local engine; beyond it `429` with `x-ms-retry-after-ms`, like Cosmos DB (5,000 = a serverless container)',
    appliesTo: 'local stack',
    deployed: false,
  },
  {
    name: 'DEV_COSMOS_MODE',
    default: '`serverless`',
    meaning:
      "the local engine's account mode: `serverless` (the template's default account) ignores request priority, as Azure does on serverless accounts; `provisioned` throttles low-priority requests first when a container's budget runs short (priority-based execution)",
    appliesTo: 'local stack',
    deployed: false,
  },
  {
    name: 'DEV_HOST_PORT',
    default: '`7071`',
    meaning: 'port of the dev host (the functions)',
    appliesTo: 'local stack',
    deployed: false,
  },
  {
    name: 'DEV_IDP_PORT',
    default: '`7072`',
    meaning: 'port of the identity-provider stand-in',
    appliesTo: 'local stack',
    deployed: false,
  },
  {
    name: 'DEV_DIRECTORY_PORT',
    default: '`7073`',
    meaning: 'port of the directory (Microsoft Graph) stand-in',
    appliesTo: 'local stack',
    deployed: false,
  },
  {
    name: 'DEV_KEY_VAULT_PORT',
    default: '`7074`',
    meaning: "port of the Key Vault stand-in (the key that wraps each tenant's data key)",
    appliesTo: 'local stack',
    deployed: false,
  },
  {
    name: 'DEV_COSMOS_PORT',
    default: '`8081`',
    meaning: 'port of the Cosmos DB-compatible engine (also where `npm run ops` looks for the local stack)',
    appliesTo: 'local stack',
    deployed: false,
  },
  {
    name: 'DEV_QUEUE_PORT',
    default: '`10001`',
    meaning: 'port of the Azurite queue service',
    appliesTo: 'local stack',
    deployed: false,
  },
];

/** The default as docs/configuration.md shows it: from `parse` when it has one, otherwise the written text. */
export function defaultText(row: SettingDescription): string {
  const parse = row.parse;
  if (parse === undefined) return row.default ?? '';
  if (parse.type !== 'integer') return `\`${String(parse.default)}\``;
  if (parse.autoscaleDefault !== undefined)
    return `\`${String(parse.default)}\` (serverless); \`${parse.autoscaleDefault}\` (autoscale)`;
  if (typeof parse.default === 'number') return `\`${parse.default}\`${parse.note ? ` ${parse.note}` : ''}`;
  return `twice \`${parse.default.twice}\` (\`${2 * integerDefault(parse.default.twice)}\`)`;
}

/** The default of a whole-number setting (another setting's doubled, where it follows one). */
export function integerDefault(name: string): number {
  const fallback = parseOf(name, 'integer').default;
  return typeof fallback === 'number' ? fallback : 2 * integerDefault(fallback.twice);
}

/**
 * Request units a second of bulk work on a serverless account, per tenant and for all tenants, for the fleet
 * (lib/store/requestUnitPacing.ts). All tenants' is half of what a serverless container serves (5,000 RU/s), so
 * bulk work leaves at least half of each container to SCIM and administrator requests; a tenant alone gets
 * 2,000 (about 200 new identities a second), two tenants at once share the 2,500.
 */
export const DEFAULT_BULK_RU_PER_TENANT = integerDefault('BULK_REQUEST_UNITS_PER_SECOND_PER_TENANT');
export const DEFAULT_BULK_RU_PER_INSTANCE = integerDefault('BULK_REQUEST_UNITS_PER_SECOND');

/**
 * Names of every setting the template sets itself; the infrastructure test checks each is set (the others reach
 * Azure through EXTRA_APP_SETTINGS). BACKGROUND_QUEUE (a connection string) is local only: in Azure the queue
 * connection is identity-based.
 */
export const SETTING_NAMES: readonly string[] = SETTINGS.filter((s) => s.deployed).map((s) => s.name);

let cached: Settings | undefined;

/** Forgets the settings read so far, so the next call reads the environment again. */
export function resetSettings(): void {
  cached = undefined;
}

/** Settings of this process, read on first use. */
export function settings(): Settings {
  cached ??= loadSettings();
  return cached;
}
