// Cosmos DB for NoSQL: the database and the containers of lib/store/containers.ts.
// infra/cosmos-containers.json is generated from that file (command in docs/operations.md "Build and package")
// and tests/unit/infra fails when the two differ, so ids, partition keys, unique keys and indexing
// policies are defined once. Unique keys cannot change after a container exists: a change to them
// needs a new container and a copy.
// Entra-only data access (disableLocalAuth): no account key exists for anyone to leak.
//
// Capacity (docs/security.md, "Fairness in the store"):
// - serverless: no throughput setting and no priority-based execution (Azure does not support it on
//   serverless accounts); fairness between tenants comes from the service's per-tenant pacing of bulk work;
// - autoscale: provisioned throughput with priority-based execution. The containers bulk work shares with
//   SCIM (identities, imports, links) each get autoscale throughput of their own, because Azure documents
//   priority-based execution as non-deterministic on a database's shared throughput (learn.microsoft.com/azure/
//   cosmos-db/priority-based-execution, "Limitations"); the small containers
//   share the database's. A container's own throughput is set when it is created: an account created
//   before this layout keeps its shared containers (a new environment and a copy change them).
param location string
param tags object
param accountName string
param databaseName string
@allowed([
  'serverless'
  'autoscale'
])
param throughputMode string
param autoscaleMaxThroughput int
param containerAutoscaleMaxThroughput int
@description('Private networking: public network access off (the private endpoint is in network.bicep).')
param vnetEnabled bool
@description('Replicas spread over the availability zones of the region (both modes; serverless too, in the regions Azure lists). Fixed when the account is created.')
param zoneRedundant bool

var containers = loadJsonContent('../cosmos-containers.json')
// Read and written by SCIM and by bulk work (imports, associations, background units).
var dedicatedContainers = [
  'identities'
  'imports'
  'links'
]

resource account 'Microsoft.DocumentDB/databaseAccounts@2025-10-15' = {
  name: accountName
  location: location
  tags: tags
  kind: 'GlobalDocumentDB'
  properties: union(
    {
      databaseAccountOfferType: 'Standard'
      locations: [
        {
          locationName: location
          failoverPriority: 0
          isZoneRedundant: zoneRedundant
        }
      ]
      consistencyPolicy: {
        defaultConsistencyLevel: 'Session'
      }
      // Serverless is chosen when the account is created; moving to provisioned throughput later is a
      // migration of the account, not a parameter change (see docs/operations.md).
      capabilities: throughputMode == 'serverless' ? [{ name: 'EnableServerless' }] : []
      disableLocalAuth: true
      // Databases and containers are created here (ARM), never by the application.
      disableKeyBasedMetadataWriteAccess: true
      minimalTlsVersion: 'Tls12'
      publicNetworkAccess: vnetEnabled ? 'Disabled' : 'Enabled'
      // Point-in-time restore to a new account, any second of the last 7 days.
      backupPolicy: {
        type: 'Continuous'
        continuousModeProperties: {
          tier: 'Continuous7Days'
        }
      }
    },
    // Priority-based execution (API 2025-10-15 and later): the service sends its bulk work at low priority
    // (lib/store/priority.ts), so when a container's request units run short, Cosmos DB throttles that work
    // first, best effort. Provisioned throughput only.
    throughputMode == 'autoscale' ? { enablePriorityBasedExecution: true, defaultPriorityLevel: 'High' } : {}
  )
}

resource database 'Microsoft.DocumentDB/databaseAccounts/sqlDatabases@2025-10-15' = {
  parent: account
  name: databaseName
  properties: {
    resource: {
      id: databaseName
    }
    // Autoscale: shared by the containers without throughput of their own; serverless has no throughput setting.
    options: throughputMode == 'autoscale' ? { autoscaleSettings: { maxThroughput: autoscaleMaxThroughput } } : {}
  }
}

resource sqlContainers 'Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers@2025-10-15' = [
  for c in containers: {
    parent: database
    name: c.id
    properties: {
      // id, partitionKey, uniqueKeyPolicy, indexingPolicy and defaultTtl exactly as in the code; hash v2 partitioning.
      resource: union(c, { partitionKey: union(c.partitionKey, { kind: 'Hash', version: 2 }) })
      options: throughputMode == 'autoscale' && contains(dedicatedContainers, c.id) ? { autoscaleSettings: { maxThroughput: containerAutoscaleMaxThroughput } } : {}
    }
  }
]

output name string = account.name
output id string = account.id
output endpoint string = account.properties.documentEndpoint
