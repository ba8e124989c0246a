/**
 * Every setting the service reads, from the environment, validated once.
 * A bad or missing setting fails at start with a message naming it.
 */
import { isProduction, productionRefusal } from './productionSafety';

export interface Settings {
  /** Public base URL of the service, used in scimEndpoint and meta.location. */
  publicBaseUrl: string;
  cosmos: {
    endpoint: string;
    /** Account key; absent in Azure, where the managed identity is used. */
    key?: string;
    database: string;
  };
  auth: {
    /** Token authority, e.g. https://login.microsoftonline.com (no trailing slash). */
    authority: string;
    /**
     * Accepted token audiences. Local: the App ID URI (default the local stack's) and, if set, the client id.
     * In Azure: the service's client id (the `aud` of every v2 token), plus a tenant-unique App ID URI only when one is configured.
     */
    audiences: string[];
  };
  graph: {
    baseUrl: string;
    /** How the service gets app-only Graph tokens for a customer tenant. */
    credential: 'clientSecret' | 'certificate' | 'managedIdentity';
    clientId?: string;
    /** Client id of the user-assigned identity that is the application's federated credential (managedIdentity mode). */
    managedIdentityClientId?: string;
    clientSecret?: string;
    /** PEM (private key and certificate); in Azure a Key Vault reference to the certificate. */
    certificate?: string;
    certificatePath?: string;
  };
  retentionInactiveDays: number;
  scimRateLimitPerSecond: number;
  scimMaxBodyBytes: number;
  graphqlMaxBodyBytes: number;
  /** Bound on a GraphQL document's text, apart from its variables; refused while the body streams in. */
  graphqlMaxQueryBytes: number;
  graphqlIntrospection: boolean;
  /** Requests one SCIM integration (or one tenant's GraphQL callers) may have in flight on an instance. */
  maxRequestsInFlight: number;
  /** GraphQL requests per tenant per minute, per instance. */
  graphqlRequestsPerMinute: number;
  /** Imported identities plus associated pairs per tenant per minute, per instance. */
  bulkItemsPerMinute: number;
  importMaxDeleteRatio?: number;
  importMaxIdentities: number;
  associationMaxPairs: number;
  /** Pending/conflict identities one unit of background link work examines (one tenant). */
  pendingLinkBatchLimit: number;
  pendingLinkBackoff: { baseSeconds: number; maxSeconds: number };
  /** The Storage queue of background work: a connection string (local), or the identity-based queue service URI (Azure). */
  backgroundQueue: { connectionString?: string; queueServiceUri?: string };
  logLevel: 'debug' | 'info' | 'warn' | 'error';
}

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

function url(env: Env, name: string, fallback?: string): string {
  const raw = optional(env, name) ?? fallback;
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

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = optional(env, name);
  if (raw === undefined) return fallback;
  if (!/^-?\d+$/.test(raw)) throw new ConfigError(name, 'must be a whole number');
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(name, `must be between ${min} and ${max}`);
  return n;
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = optional(env, name)?.toLowerCase();
  if (raw === undefined) return fallback;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new ConfigError(name, 'must be true or false');
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = optional(env, name) ?? fallback;
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

/** The local stack's audience; any application in any tenant can claim it, so Azure refuses it. */
export const LOCAL_APP_ID_URI = 'api://business-identity-service';

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * True when the process runs on the Azure Functions / App Service platform. The platform sets
 * WEBSITE_INSTANCE_ID and WEBSITE_SITE_NAME on every instance; Core Tools, the dev host and the tests
 * set neither, and local.settings.sample.json must not either.
 */
export function hostedInAzure(env: Env): boolean {
  return optional(env, 'WEBSITE_INSTANCE_ID') !== undefined || optional(env, 'WEBSITE_SITE_NAME') !== undefined;
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

export function loadSettings(env: Env = process.env): Settings {
  // Production (Azure, or NODE_ENV=production) fails closed: see productionSafety.
  const inAzure = isProduction(env, hostedInAzure(env));
  const graphCredential = oneOf(
    env,
    'GRAPH_CREDENTIAL',
    ['clientSecret', 'certificate', 'managedIdentity'] as const,
    'managedIdentity',
  );
  const settings: Settings = {
    publicBaseUrl: url(env, 'PUBLIC_BASE_URL'),
    cosmos: {
      endpoint: url(env, 'COSMOS_ENDPOINT'),
      key: optional(env, 'COSMOS_KEY'),
      database: optional(env, 'COSMOS_DATABASE') ?? 'business-identities',
    },
    auth: {
      authority: url(env, 'AUTH_AUTHORITY', 'https://login.microsoftonline.com'),
      audiences: audiences(env, inAzure),
    },
    graph: {
      baseUrl: url(env, 'GRAPH_BASE_URL', 'https://graph.microsoft.com'),
      credential: graphCredential,
      clientId: optional(env, 'GRAPH_CLIENT_ID'),
      managedIdentityClientId: optional(env, 'GRAPH_MANAGED_IDENTITY_CLIENT_ID'),
      clientSecret: optional(env, 'GRAPH_CLIENT_SECRET'),
      certificate: optional(env, 'GRAPH_CERTIFICATE'),
      certificatePath: optional(env, 'GRAPH_CERTIFICATE_PATH'),
    },
    retentionInactiveDays: integer(env, 'RETENTION_INACTIVE_DAYS', 90, 0, 3650),
    scimRateLimitPerSecond: integer(env, 'SCIM_RATE_LIMIT_PER_SECOND', 50, 1, 100000),
    scimMaxBodyBytes: integer(env, 'SCIM_MAX_BODY_BYTES', 1024 * 1024, 1024, 100 * 1024 * 1024),
    graphqlMaxBodyBytes: integer(env, 'GRAPHQL_MAX_BODY_BYTES', 100 * 1024 * 1024, 1024, 100 * 1024 * 1024),
    graphqlMaxQueryBytes: integer(env, 'GRAPHQL_MAX_QUERY_BYTES', 64 * 1024, 1024, 1024 * 1024),
    graphqlIntrospection: bool(env, 'GRAPHQL_INTROSPECTION', false),
    maxRequestsInFlight: integer(env, 'MAX_REQUESTS_IN_FLIGHT', 32, 1, 1000),
    graphqlRequestsPerMinute: integer(env, 'GRAPHQL_REQUESTS_PER_MINUTE', 600, 1, 1_000_000),
    bulkItemsPerMinute: integer(env, 'BULK_ITEMS_PER_MINUTE', 500_000, 1, 50_000_000),
    importMaxDeleteRatio: ratio(env, 'IMPORT_MAX_DELETE_RATIO'),
    importMaxIdentities: integer(env, 'IMPORT_MAX_IDENTITIES', 250_000, 1, 5_000_000),
    associationMaxPairs: integer(env, 'ASSOCIATION_MAX_PAIRS', 20_000, 1, 5_000_000),
    pendingLinkBatchLimit: integer(env, 'PENDING_LINK_BATCH_LIMIT', 300, 1, 100_000),
    pendingLinkBackoff: {
      baseSeconds: integer(env, 'PENDING_LINK_BACKOFF_SECONDS', 300, 0, 86_400),
      maxSeconds: integer(env, 'PENDING_LINK_BACKOFF_MAX_SECONDS', 14_400, 0, 7 * 86_400),
    },
    backgroundQueue: {
      connectionString: optional(env, 'BACKGROUND_QUEUE'),
      queueServiceUri:
        optional(env, 'BACKGROUND_QUEUE__queueServiceUri') === undefined
          ? undefined
          : url(env, 'BACKGROUND_QUEUE__queueServiceUri'),
    },
    logLevel: oneOf(env, 'LOG_LEVEL', ['debug', 'info', 'warn', 'error'] as const, 'info'),
  };
  if (settings.bulkItemsPerMinute < Math.max(settings.importMaxIdentities, settings.associationMaxPairs)) {
    throw new ConfigError(
      'BULK_ITEMS_PER_MINUTE',
      'must be at least IMPORT_MAX_IDENTITIES and ASSOCIATION_MAX_PAIRS: the largest import must fit in a minute',
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

/**
 * Names of every setting read above; the infrastructure test checks each is deployed. BACKGROUND_QUEUE
 * (a connection string) is local only: in Azure the queue connection is identity-based.
 */
export const SETTING_NAMES = [
  'PUBLIC_BASE_URL',
  'COSMOS_ENDPOINT',
  'COSMOS_KEY',
  'COSMOS_DATABASE',
  'AUTH_AUTHORITY',
  'SERVICE_APP_ID_URI',
  'SERVICE_CLIENT_ID',
  'GRAPH_BASE_URL',
  'GRAPH_CREDENTIAL',
  'GRAPH_CLIENT_ID',
  'GRAPH_MANAGED_IDENTITY_CLIENT_ID',
  'GRAPH_CLIENT_SECRET',
  'GRAPH_CERTIFICATE',
  'GRAPH_CERTIFICATE_PATH',
  'RETENTION_INACTIVE_DAYS',
  'SCIM_RATE_LIMIT_PER_SECOND',
  'SCIM_MAX_BODY_BYTES',
  'GRAPHQL_MAX_BODY_BYTES',
  'GRAPHQL_MAX_QUERY_BYTES',
  'GRAPHQL_INTROSPECTION',
  'MAX_REQUESTS_IN_FLIGHT',
  'GRAPHQL_REQUESTS_PER_MINUTE',
  'BULK_ITEMS_PER_MINUTE',
  'IMPORT_MAX_DELETE_RATIO',
  'IMPORT_MAX_IDENTITIES',
  'ASSOCIATION_MAX_PAIRS',
  'PENDING_LINK_BATCH_LIMIT',
  'LOG_LEVEL',
  'PENDING_LINK_BACKOFF_SECONDS',
  'PENDING_LINK_BACKOFF_MAX_SECONDS',
  'BACKGROUND_QUEUE__queueServiceUri',
  'BACKGROUND_QUEUE__credential',
  'RETENTION_SCHEDULE',
  'RESOLVE_PENDING_LINKS_SCHEDULE',
] as const;

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
