import type { ContainerDefinition, IndexingPolicy } from '@azure/cosmos';

/**
 * Indexes only the paths the service's queries filter or order on (Cosmos DB's advice for
 * write-heavy containers: exclude `/*`, include the queried paths), so a write pays for a handful of
 * index terms instead of one per property. `id` and `_ts` are always indexed. The partition key is
 * included because queries name it. A query on any other path would scan its partition; the local
 * engine records such queries and the integration tests fail on them (tests/support/stack.ts).
 */
function onlyPaths(
  paths: readonly string[],
  compositeIndexes: IndexingPolicy['compositeIndexes'] = [],
): IndexingPolicy {
  return {
    indexingMode: 'consistent',
    automatic: true,
    includedPaths: ['/pk/?', ...paths].map((path) => ({ path })),
    excludedPaths: [{ path: '/*' }, { path: '/"_etag"/?' }],
    ...(compositeIndexes.length > 0 ? { compositeIndexes } : {}),
  };
}

const asc = (path: string) => ({ path, order: 'ascending' as const });
const desc = (path: string) => ({ path, order: 'descending' as const });

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
    /**
     * Queried: the unique keys (eq filters, imports), lastModified (SCIM range filters), the link
     * (admin page filter, pending checks, conflicts, directory changes matched by UPN key, owed look-ups,
     * the console's search by exact UPN), the asserted UPN (the console's search by exact UPN), the UPN keys
     * (each element: the console's search by UPN in any case), retention (hasSensitive, inactiveSince) and
     * tenantId (per-tenant background units), activityAt (a source's activity, newest first) and lastRunId
     * (a run's changes, in id order). Composites serve "filter on link status, ORDER BY id"
     * (admin page, pending checks) and the retention planner's walk over partitions. Every term
     * costs 0.2 RU per write: a new SCIM User has ten, and one per distinct UPN key (7.75 RU to create).
     * Personal numbers, documents and the identity's history (`history`, up to 50 changes: lib/identities/history.ts) are never
     * indexed (`/*` is excluded): a change adds its bytes to a write, never an index term.
     */
    indexingPolicy: onlyPaths(
      [
        '/tenantId/?',
        '/externalIdKey/?',
        '/userNameKey/?',
        '/lastModified/?',
        '/link/status/?',
        '/link/conflictUserId/?',
        '/link/nextCheckAt/?',
        '/link/upnKey/?',
        '/link/lookedUpUpn/?',
        '/link/lookUpOwed/?',
        '/link/userPrincipalName/?',
        '/directoryUserPrincipalName/?',
        '/upnKeys/[]/?',
        '/hasSensitive/?',
        '/inactiveSince/?',
        '/activityAt/?',
        '/lastRunId/?',
      ],
      [
        [asc('/link/status'), asc('/id')],
        [asc('/hasSensitive'), asc('/pk')],
        [asc('/lastRunId'), asc('/id')],
      ],
    ),
  },
  /**
   * One claim per linked directory user (pk = tenantId, id = directory object id); per tenant, its
   * directory change tracking state (pk = tenantId, id `directory-delta`); background runs'
   * cursors (pk `_service`) and SCIM list page cursors (pk `paging|<identities pk>`, with a `ttl`).
   * Time to live is on, with no default: only items that carry a `ttl` expire.
   */
  links: {
    id: 'links',
    partitionKey: { paths: ['/pk'] },
    defaultTtl: -1,
    /** Queried: claims by id (always indexed) and orphan repair by claimedAt. */
    indexingPolicy: onlyPaths(['/claimedAt/?']),
  },
  /** SCIM integrations. pk = tenantId; clientIdKey is unique within the tenant. */
  integrations: {
    id: 'integrations',
    partitionKey: { paths: ['/pk'] },
    uniqueKeyPolicy: { uniqueKeys: [{ paths: ['/clientIdKey'] }] },
    indexingPolicy: onlyPaths(['/clientIdKey/?', '/createdAt/?']),
  },
  /** Registered customer tenants. pk = id = tenantId. */
  tenants: { id: 'tenants', partitionKey: { paths: ['/pk'] }, indexingPolicy: onlyPaths([]) },
  /** Administrative actions and link changes. pk = tenantId. Never holds sensitive values. */
  audit: {
    id: 'audit',
    partitionKey: { paths: ['/pk'] },
    /** Queried: a tenant's entries in time order, optionally of one target. */
    indexingPolicy: onlyPaths(['/at/?', '/target/id/?'], [[asc('/target/id'), asc('/at')]]),
  },
  /**
   * Import manifests (externalId -> content hash, in segments), import leases, the run history and staged
   * imports (session, parts, job). pk = `<tenantId>|<source>`; pointers in `<tenantId>|_runs` and
   * `<tenantId>|_imports`, running jobs in `_jobs`. Time to live on, per item: runs and staged imports carry
   * `ttl`, manifests and leases never expire. Manifest entries and parts are read whole, never queried:
   * indexing their thousands of keys would make each segment or part write cost several times its size.
   */
  imports: {
    id: 'imports',
    partitionKey: { paths: ['/pk'] },
    defaultTtl: -1,
    /** Queried: manifest shards and runs by kind, runs newest first (of some statuses: a source's activity). */
    indexingPolicy: onlyPaths(
      ['/kind/?', '/status/?'],
      [
        [asc('/kind'), desc('/id')],
        [asc('/kind'), asc('/status'), desc('/id')],
      ],
    ),
  },
  /**
   * Refused SCIM requests per integration (pk = `<tenantId>|<integrationId>`), and per minute a count of
   * those beyond the recording limit. The id begins with the time, so ORDER BY id is newest first and a
   * time filter is a range on id. Time to live on, per item: every record carries `ttl`
   * (ACTIVITY_RETENTION_DAYS); an item's own `ttl` applies only when the container has a default.
   */
  activity: {
    id: 'activity',
    partitionKey: { paths: ['/pk'] },
    defaultTtl: -1,
    /**
     * Queried: newest first by id, optionally of one externalId (the composite serves that equality with
     * the order). A record thus has at most four index terms (id, pk, externalId, the composite) and
     * about 1.2 KB at most (lib/activity/refusals.ts bounds its texts): at most 6 RU to write.
     */
    indexingPolicy: onlyPaths(['/externalId/?'], [[asc('/externalId'), desc('/id')]]),
  },
  /**
   * Leases on shares of the fleet's budgets (lib/limits/fleetShares.ts): pk = the budget's key (a tenant id, an
   * integration id, `_service`), id = the budget's name; one small document listing the instances that hold a
   * share and when each lease ends. Written about once a second per active key and instance, read by point
   * reads only, so nothing but the partition key is indexed. Time to live 60 s by default: the document of a
   * key nobody renews any more vanishes by itself.
   */
  leases: {
    id: 'leases',
    partitionKey: { paths: ['/pk'] },
    defaultTtl: 60,
    indexingPolicy: onlyPaths([]),
  },
} as const satisfies Record<string, ContainerDefinition>;

export type ContainerName = keyof typeof CONTAINERS;
