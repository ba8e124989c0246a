/** The service's settings as the code reads them (loaded and validated by settings.ts). */
export interface Settings {
  /** Public base URL of the service, used in scimEndpoint and meta.location. */
  publicBaseUrl: string;
  cosmos: {
    endpoint: string;
    /** Account key; absent in Azure, where the managed identity is used. */
    key?: string;
    database: string;
  };
  /** Field encryption of personal and document numbers (lib/crypto). */
  fieldEncryption: {
    /** Key Vault of the key-encryption key; absent only outside production (numbers then stored as sent). */
    keyVaultUrl?: string;
    keyName: string;
    keyCacheSeconds: number;
  };
  auth: {
    /** Token authority, e.g. https://login.microsoftonline.com (no trailing slash). */
    authority: string;
    /**
     * Accepted token audiences. Local: the App ID URI (default the local stack's) and, if set, the client id.
     * In Azure: the service's client id (the `aud` of every v2 token), plus a tenant-unique App ID URI only when one is configured.
     */
    audiences: string[];
    /** A token without `idtyp` (app or user) is refused, unless AUTH_ALLOW_UNTYPED_TOKENS (never in production). */
    requireTokenType: boolean;
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
  /** SCIM requests per second of all a tenant's integrations together, per instance; at least scimRateLimitPerSecond. */
  scimTenantRateLimitPerSecond: number;
  /** SCIM requests all a tenant's integrations may have in flight on an instance; at least maxRequestsInFlight. */
  scimTenantMaxRequestsInFlight: number;
  /** Enabled SCIM integrations a tenant may have (creating or enabling one more is refused). */
  scimMaxIntegrationsPerTenant: number;
  scimMaxBodyBytes: number;
  /** Largest GraphQL body (413 USE_STAGED_IMPORT beyond, refused before or while it is read). */
  graphqlMaxBodyBytes: number;
  /** Most JSON values and deepest nesting of a GraphQL body, counted while it is read (lib/http/jsonShape.ts). */
  graphqlMaxJsonValues: number;
  graphqlMaxJsonDepth: number;
  /** Bound on a GraphQL document's text, apart from its variables; refused while the body streams in. */
  graphqlMaxQueryBytes: number;
  graphqlIntrospection: boolean;
  /** Browser origins allowed to call /graphql cross-origin (CORS); empty = same-origin only. */
  graphqlCorsOrigins: string[];
  /** GraphQL body bytes held at once per instance (lib/limits/bodyBytes.ts); at least twice a tenant's share. */
  graphqlBodyBytesInFlight: number;
  /** One tenant's share of graphqlBodyBytesInFlight; at least graphqlMaxBodyBytes. */
  graphqlTenantBodyBytesInFlight: number;
  /** Requests one SCIM integration (or one tenant's GraphQL callers) may have in flight on an instance. */
  maxRequestsInFlight: number;
  /** GraphQL requests per tenant per minute, for the fleet. */
  graphqlRequestsPerMinute: number;
  /** Imported identities plus associated pairs per tenant per minute, for the fleet. */
  bulkItemsPerMinute: number;
  /** The Cosmos DB account's capacity mode: the bulk budgets' defaults follow it. */
  cosmosThroughputMode: 'serverless' | 'autoscale';
  /** Request units a second one tenant's bulk work may spend, for the fleet (lib/store/requestUnitPacing.ts). */
  bulkRequestUnitsPerSecondPerTenant: number;
  /** Request units a second all tenants' bulk work together may spend, for the fleet. */
  bulkRequestUnitsPerSecond: number;
  /** Leased shares of the fleet's budgets (lib/limits/fleetShares.ts): how often a lease is renewed, how long it lasts. */
  fleetLeaseRenewMs: number;
  fleetLeaseMs: number;
  importMaxDeleteRatio?: number;
  /** Identities of one source's import set, staged or in one request. */
  importMaxIdentities: number;
  /** Identities of one part of a staged import. */
  importPartMaxIdentities: number;
  /** How long a staged import stays open for parts and completion. */
  stagedImportTtlSeconds: number;
  /** Identity writes (or deletions) one step of a staged import's job makes at most. */
  importStepMaxWrites: number;
  /** ExternalIds one step of a staged import's job holds at most (of the set and of the manifest each). */
  importStepMaxKeys: number;
  /** Staged imports (not dry runs) a tenant may have started and not yet ended, at once. */
  importMaxOpenPerTenant: number;
  /** Staged dry runs a tenant may have started and not yet ended, at once. */
  importMaxDryRunsPerTenant: number;
  /** Units of background work (queue messages) one instance runs at once, shared fairly among tenants. */
  backgroundUnitsPerInstance: number;
  associationMaxPairs: number;
  /** Refused SCIM requests kept per integration (lib/activity/refusals.ts). */
  activity: {
    /** Days a refusal record lives (the item's time to live). */
    retentionDays: number;
    /** Refusals recorded one by one per integration per minute per instance; the rest are counted. */
    refusalsPerMinute: number;
    /** Refused SCIM requests recorded per tenant per minute, for the fleet. */
    tenantRefusalsPerMinute: number;
  };
  pendingLinkBackoff: { baseSeconds: number; maxSeconds: number };
  /** The Storage queue of background work: a connection string (local), or the identity-based queue service URI (Azure). */
  backgroundQueue: { connectionString?: string; queueServiceUri?: string };
  /** Where the background-queue measurement sends its metrics (Azure Monitor custom metrics); unset = logged only. */
  metrics: { resourceId?: string; region?: string };
  logLevel: 'debug' | 'info' | 'warn' | 'error';
  /** The administrator console (served at /console): its app registration and the API scope it asks for. */
  console: {
    /** Client id of the console's single-page application registration; without it the console explains that it is not set up. */
    clientId?: string;
    /** The delegated scope the console requests: <App ID URI>/Console.Admin. */
    apiScope: string;
    /** The tenant segment of the sign-in authority: `organizations` (any work account) or one tenant id. */
    authorityTenant: string;
  };
}
