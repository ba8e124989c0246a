/**
 * What production refuses (hosted in Azure, or NODE_ENV=production): settings that only make sense on
 * the local stack fail the start with a message naming the setting, never its value. Entra and Graph
 * endpoints come from the public and sovereign clouds; the store and the queue are reached with the
 * managed identity only; introspection is off; limits stay within what one instance can carry.
 */
import type { Settings } from './settingsShape';

type Env = Record<string, string | undefined>;

/** Entra ID sign-in endpoints: public cloud, US Government, China (21Vianet, both host names). */
export const ENTRA_AUTHORITIES: readonly string[] = [
  'https://login.microsoftonline.com',
  'https://login.microsoftonline.us',
  'https://login.chinacloudapi.cn',
  'https://login.partner.microsoftonline.cn',
];

/** Microsoft Graph endpoints: public cloud, US Government L4 and L5 (DoD), China (21Vianet). */
export const GRAPH_ENDPOINTS: readonly string[] = [
  'https://graph.microsoft.com',
  'https://graph.microsoft.us',
  'https://dod-graph.microsoft.us',
  'https://microsoftgraph.chinacloudapi.cn',
];

/** The largest value production accepts per limit (the settings' own ranges are wider, for tests and benchmarks). */
export const PRODUCTION_MAXIMA: ReadonlyArray<[string, (s: Settings) => number, number]> = [
  ['SCIM_RATE_LIMIT_PER_SECOND', (s) => s.scimRateLimitPerSecond, 1_000],
  ['SCIM_MAX_BODY_BYTES', (s) => s.scimMaxBodyBytes, 10 * 1024 * 1024],
  ['GRAPHQL_MAX_BODY_BYTES', (s) => s.graphqlMaxBodyBytes, 8 * 1024 * 1024],
  ['GRAPHQL_MAX_JSON_VALUES', (s) => s.graphqlMaxJsonValues, 1_000_000],
  ['GRAPHQL_MAX_JSON_DEPTH', (s) => s.graphqlMaxJsonDepth, 128],
  ['GRAPHQL_BODY_BYTES_IN_FLIGHT', (s) => s.graphqlBodyBytesInFlight, 512 * 1024 * 1024],
  ['GRAPHQL_TENANT_BODY_BYTES_IN_FLIGHT', (s) => s.graphqlTenantBodyBytesInFlight, 128 * 1024 * 1024],
  ['GRAPHQL_MAX_QUERY_BYTES', (s) => s.graphqlMaxQueryBytes, 256 * 1024],
  ['MAX_REQUESTS_IN_FLIGHT', (s) => s.maxRequestsInFlight, 256],
  ['GRAPHQL_REQUESTS_PER_MINUTE', (s) => s.graphqlRequestsPerMinute, 6_000],
  ['BULK_ITEMS_PER_MINUTE', (s) => s.bulkItemsPerMinute, 2_000_000],
  ['IMPORT_MAX_IDENTITIES', (s) => s.importMaxIdentities, 2_000_000],
  ['ASSOCIATION_MAX_PAIRS', (s) => s.associationMaxPairs, 100_000],
  // After the per-integration limits: their defaults are twice those, so those are named first.
  ['SCIM_TENANT_RATE_LIMIT_PER_SECOND', (s) => s.scimTenantRateLimitPerSecond, 2_000],
  ['SCIM_TENANT_MAX_REQUESTS_IN_FLIGHT', (s) => s.scimTenantMaxRequestsInFlight, 512],
  ['SCIM_MAX_INTEGRATIONS_PER_TENANT', (s) => s.scimMaxIntegrationsPerTenant, 100],
];

/** True on the Azure platform (WEBSITE_SITE_NAME) or with NODE_ENV=production. */
export function isProduction(env: Env, hostedInAzure: boolean): boolean {
  return hostedInAzure || env.NODE_ENV?.trim().toLowerCase() === 'production';
}

/** A problem with one setting: its name and what is wrong, without its value. */
export type Refusal = [setting: string, problem: string];

function httpsOrigin(url: string): string | undefined {
  try {
    const u = new URL(url);
    if (u.protocol !== 'https:' || u.username || u.password || u.search || u.hash) return undefined;
    if (u.pathname !== '/' && u.pathname !== '') return undefined;
    return u.origin;
  } catch {
    return undefined;
  }
}

const isHttps = (url: string | undefined): boolean => url === undefined || url.startsWith('https://');

/** The first production refusal of these settings, if any. */
export function productionRefusal(s: Settings): Refusal | undefined {
  const authority = httpsOrigin(s.auth.authority);
  if (!authority || !ENTRA_AUTHORITIES.includes(authority))
    return ['AUTH_AUTHORITY', `must be an Entra ID sign-in endpoint over https (${ENTRA_AUTHORITIES.join(', ')})`];
  const graph = httpsOrigin(s.graph.baseUrl);
  if (!graph || !GRAPH_ENDPOINTS.includes(graph))
    return ['GRAPH_BASE_URL', `must be a Microsoft Graph endpoint over https (${GRAPH_ENDPOINTS.join(', ')})`];
  if (s.cosmos.key !== undefined)
    return ['COSMOS_KEY', 'must be empty in production: the store is reached with the managed identity'];
  if (!isHttps(s.cosmos.endpoint)) return ['COSMOS_ENDPOINT', 'must be an https URL in production'];
  if (s.fieldEncryption.keyVaultUrl === undefined || !isHttps(s.fieldEncryption.keyVaultUrl))
    return [
      'KEY_VAULT_URL',
      'must be the https URL of the Key Vault in production: personal and document numbers are stored encrypted',
    ];
  if (s.backgroundQueue.connectionString !== undefined)
    return [
      'BACKGROUND_QUEUE',
      'must be empty in production: the queue is reached with the managed identity (BACKGROUND_QUEUE__queueServiceUri)',
    ];
  if (s.backgroundQueue.queueServiceUri === undefined || !isHttps(s.backgroundQueue.queueServiceUri))
    return ['BACKGROUND_QUEUE__queueServiceUri', 'must be the https queue service URI in production'];
  if (s.graph.credential === 'clientSecret' || s.graph.clientSecret !== undefined)
    return ['GRAPH_CLIENT_SECRET', 'is for the local stack only: use managedIdentity or certificate in production'];
  if (!isHttps(s.publicBaseUrl)) return ['PUBLIC_BASE_URL', 'must be an https URL in production'];
  if (s.graphqlIntrospection) return ['GRAPHQL_INTROSPECTION', 'must be false in production'];
  if (!s.auth.requireTokenType) return ['AUTH_ALLOW_UNTYPED_TOKENS', 'must be false in production'];
  for (const [name, value, max] of PRODUCTION_MAXIMA)
    if (value(s) > max) return [name, `must be at most ${max} in production`];
  return undefined;
}
