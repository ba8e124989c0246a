// Cosmos DB for NoSQL: the database and the containers of lib/store/containers.ts.
// infra/cosmos-containers.json is generated from that file (command in docs/operations.md "Build and package")
// and tests/unit/infra fails when the two differ, so ids, partition keys, unique keys and indexing
// policies are defined once. Unique keys cannot change after a container exists: a change to them
// needs a new container and a copy.
// Entra-only data access (disableLocalAuth): no account key exists for anyone to leak.
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
param publicNetworkAccess string

var containers = loadJsonContent('../cosmos-containers.json')

resource account 'Microsoft.DocumentDB/databaseAccounts@2024-11-15' = {
  name: accountName
  location: location
  tags: tags
  kind: 'GlobalDocumentDB'
  properties: {
    databaseAccountOfferType: 'Standard'
    locations: [
      {
        locationName: location
        failoverPriority: 0
        isZoneRedundant: false
      }
    ]
    consistencyPolicy: {
      defaultConsistencyLevel: 'Session'
    }
    // Serverless is chosen when the account is created; moving to provisioned throughput later is a
    // migration of the account, not a parameter change (see docs/operations.md).
    capabilities: throughputMode == 'serverless' ? [{ name: 'EnableServerless' }] : []
    // Priority-based execution: the service sends its bulk work (imports, associations, background units,
    // retention) at low priority, so when a container's request units run short, Cosmos DB throttles that
    // work first and a tenant's SCIM and administrator requests are served (docs/security.md).
    enablePriorityBasedExecution: true
    defaultPriorityLevel: 'High'
    disableLocalAuth: true
    // Databases and containers are created here (ARM), never by the application.
    disableKeyBasedMetadataWriteAccess: true
    minimalTlsVersion: 'Tls12'
    publicNetworkAccess: publicNetworkAccess
    // Point-in-time restore to a new account, any second of the last 7 days.
    backupPolicy: {
      type: 'Continuous'
      continuousModeProperties: {
        tier: 'Continuous7Days'
      }
    }
  }
}

resource database 'Microsoft.DocumentDB/databaseAccounts/sqlDatabases@2024-11-15' = {
  parent: account
  name: databaseName
  properties: {
    resource: {
      id: databaseName
    }
    // Autoscale throughput is shared by the database's containers; serverless has no throughput setting.
    options: throughputMode == 'autoscale' ? { autoscaleSettings: { maxThroughput: autoscaleMaxThroughput } } : {}
  }
}

resource sqlContainers 'Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers@2024-11-15' = [
  for c in containers: {
    parent: database
    name: c.id
    properties: {
      // id, partitionKey, uniqueKeyPolicy, indexingPolicy and defaultTtl exactly as in the code; hash v2 partitioning.
      resource: union(c, { partitionKey: union(c.partitionKey, { kind: 'Hash', version: 2 }) })
    }
  }
]

output name string = account.name
output endpoint string = account.properties.documentEndpoint
