// Cosmos DB for NoSQL: the database and the containers of lib/store/containers.ts (infra/cosmos-containers.json
// is generated from it, and a test keeps the two equal). Entra-only data access: no keys are used.
param location string
param tags object
param accountName string
param databaseName string
@allowed(['serverless', 'autoscale'])
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
    locations: [{ locationName: location, failoverPriority: 0, isZoneRedundant: false }]
    consistencyPolicy: { defaultConsistencyLevel: 'Session' }
    disableLocalAuth: true
    disableKeyBasedMetadataWriteAccess: true
    minimalTlsVersion: 'Tls12'
    publicNetworkAccess: publicNetworkAccess
    capabilities: throughputMode == 'serverless' ? [{ name: 'EnableServerless' }] : []
    backupPolicy: {
      type: 'Continuous'
      continuousModeProperties: { tier: 'Continuous7Days' }
    }
  }
}

resource database 'Microsoft.DocumentDB/databaseAccounts/sqlDatabases@2024-11-15' = {
  parent: account
  name: databaseName
  properties: {
    resource: { id: databaseName }
    options: throughputMode == 'autoscale' ? { autoscaleSettings: { maxThroughput: autoscaleMaxThroughput } } : {}
  }
}

resource sqlContainers 'Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers@2024-11-15' = [
  for c in containers: {
    parent: database
    name: c.id
    properties: {
      resource: union(c, { partitionKey: union(c.partitionKey, { kind: 'Hash', version: 2 }) })
    }
  }
]

output name string = account.name
output endpoint string = account.properties.documentEndpoint
