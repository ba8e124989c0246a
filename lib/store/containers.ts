import type { ContainerDefinition } from '@azure/cosmos';

/**
 * The containers the service uses: the one source of truth for local creation,
 * for the Bicep template and for its structural test.
 */
export const CONTAINERS = {
  /** Business identities. pk = `<tenantId>|<sourceKey>`; unique keys hold per integration/source. */
  identities: {
    id: 'identities',
    partitionKey: { paths: ['/pk'] },
    uniqueKeyPolicy: { uniqueKeys: [{ paths: ['/externalIdKey'] }, { paths: ['/userNameKey'] }] },
    indexingPolicy: {
      indexingMode: 'consistent',
      includedPaths: [{ path: '/*' }],
      excludedPaths: [
        { path: '/personalNumbers/*' },
        { path: '/identityDocumentReferences/*' },
        { path: '/"_etag"/?' },
      ],
    },
  },
  /**
   * One claim per linked directory user (pk = tenantId, id = directory object id); per tenant, its
   * directory change tracking state (pk = tenantId, id `directory-delta`); background runs'
   * cursors (pk `_service`) and SCIM list page cursors (pk `paging|<identities pk>`, with a `ttl`).
   * Time to live is on, with no default: only items that carry a `ttl` expire.
   */
  links: { id: 'links', partitionKey: { paths: ['/pk'] }, defaultTtl: -1 },
  /** SCIM integrations. pk = tenantId; clientIdKey is unique within the tenant. */
  integrations: {
    id: 'integrations',
    partitionKey: { paths: ['/pk'] },
    uniqueKeyPolicy: { uniqueKeys: [{ paths: ['/clientIdKey'] }] },
  },
  /** Registered customer tenants. pk = id = tenantId. */
  tenants: { id: 'tenants', partitionKey: { paths: ['/pk'] } },
  /** Administrative actions and link changes. pk = tenantId. Never holds sensitive values. */
  audit: { id: 'audit', partitionKey: { paths: ['/pk'] } },
  /**
   * Import manifests (externalId -> content hash, sharded), import leases and the run history.
   * pk = `<tenantId>|<source>`. Time to live on, per item: run records carry `ttl`, the rest never expire.
   * Manifest entries are read whole, never queried: indexing their thousands of keys per shard would
   * make each shard write cost over a thousand RU at 200,000 identities instead of about a hundred.
   */
  imports: {
    id: 'imports',
    partitionKey: { paths: ['/pk'] },
    defaultTtl: -1,
    indexingPolicy: {
      indexingMode: 'consistent',
      includedPaths: [{ path: '/*' }],
      excludedPaths: [{ path: '/entries/*' }, { path: '/"_etag"/?' }],
    },
  },
} as const satisfies Record<string, ContainerDefinition>;

export type ContainerName = keyof typeof CONTAINERS;
