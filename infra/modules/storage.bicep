// Storage for the Functions host (timer leases, host state), the Flex Consumption deployment
// package and the background-work queues (units planned by the timers, done by backgroundWork).
// Identity-based access only: shared keys are disabled, and with them account-key SAS and key-based
// connection strings. With private networking the account is reached through its blob, queue and table
// private endpoints only (network.bicep), as Microsoft's Flex Consumption azd samples do with vnetEnabled.
param location string
param tags object
param name string
param deploymentContainerName string
@description('Private networking: public network access off.')
param vnetEnabled bool
@description('Zone-redundant storage (three copies in three availability zones of the region) instead of locally redundant. Fixed when the account is created (a later change is a conversion).')
param zoneRedundant bool

resource storage 'Microsoft.Storage/storageAccounts@2023-05-01' = {
  name: name
  location: location
  tags: tags
  kind: 'StorageV2'
  sku: {
    name: zoneRedundant ? 'Standard_ZRS' : 'Standard_LRS'
  }
  properties: {
    accessTier: 'Hot'
    allowSharedKeyAccess: false
    allowBlobPublicAccess: false
    allowCrossTenantReplication: false
    defaultToOAuthAuthentication: true
    minimumTlsVersion: 'TLS1_2'
    supportsHttpsTrafficOnly: true
    publicNetworkAccess: vnetEnabled ? 'Disabled' : 'Enabled'
    networkAcls: vnetEnabled ? { defaultAction: 'Deny', bypass: 'None' } : { defaultAction: 'Allow', bypass: 'AzureServices' }
  }
}

resource blobService 'Microsoft.Storage/storageAccounts/blobServices@2023-05-01' = {
  parent: storage
  name: 'default'
}

resource deploymentContainer 'Microsoft.Storage/storageAccounts/blobServices/containers@2023-05-01' = {
  parent: blobService
  name: deploymentContainerName
  properties: {
    publicAccess: 'None'
  }
}

resource queueService 'Microsoft.Storage/storageAccounts/queueServices@2023-05-01' = {
  parent: storage
  name: 'default'
}

// lib/background/backgroundWork.ts BACKGROUND_QUEUE_NAME; the host moves a unit that failed
// maxDequeueCount times (host.json) to the -poison queue, where operators look (docs/operations.md).
resource backgroundWorkQueues 'Microsoft.Storage/storageAccounts/queueServices/queues@2023-05-01' = [
  for queueName in [
    'background-work'
    'background-work-poison'
  ]: {
    parent: queueService
    name: queueName
  }
]

output name string = storage.name
output id string = storage.id
output queueEndpoint string = storage.properties.primaryEndpoints.queue
output blobEndpoint string = storage.properties.primaryEndpoints.blob
output tableEndpoint string = storage.properties.primaryEndpoints.table
