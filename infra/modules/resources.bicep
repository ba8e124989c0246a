// Every resource of one environment, in one resource group.
param environmentName string
param location string
param tags object
param principalId string
param serviceAppIdUri string
param graphClientId string
param graphCredential string
param graphCertificateName string
param publicBaseUrl string
param importMaxDeleteRatio string
param consoleClientId string
param cosmosThroughputMode string
param cosmosAutoscaleMaxThroughput int
param cosmosPublicNetworkAccess string
param maximumInstanceCount int
param instanceMemoryMB int

var abbrs = loadJsonContent('../abbreviations.json')
// 13 lowercase characters, stable for a subscription + resource group + environment.
var resourceToken = toLower(uniqueString(subscription().id, resourceGroup().id, environmentName))
var functionAppName = '${abbrs.webSitesFunctions}${resourceToken}'
var deploymentContainerName = 'app-package'
// Same default as lib/config/settings.ts (COSMOS_DATABASE).
var databaseName = 'business-identities'

module monitoring 'monitoring.bicep' = {
  name: 'monitoring'
  params: {
    location: location
    tags: tags
    logAnalyticsName: '${abbrs.operationalInsightsWorkspaces}${resourceToken}'
    applicationInsightsName: '${abbrs.insightsComponents}${resourceToken}'
  }
}

module storage 'storage.bicep' = {
  name: 'storage'
  params: {
    location: location
    tags: tags
    name: '${abbrs.storageStorageAccounts}${resourceToken}'
    deploymentContainerName: deploymentContainerName
  }
}

module cosmos 'cosmos.bicep' = {
  name: 'cosmos'
  params: {
    location: location
    tags: tags
    accountName: '${abbrs.documentDBDatabaseAccounts}${resourceToken}'
    databaseName: databaseName
    throughputMode: cosmosThroughputMode
    autoscaleMaxThroughput: cosmosAutoscaleMaxThroughput
    publicNetworkAccess: cosmosPublicNetworkAccess
  }
}

module keyVault 'keyvault.bicep' = {
  name: 'keyvault'
  params: {
    location: location
    tags: tags
    name: '${abbrs.keyVaultVaults}${resourceToken}'
  }
}

module graphIdentity 'identity.bicep' = {
  name: 'identity'
  params: {
    location: location
    tags: tags
    name: '${abbrs.managedIdentityUserAssignedIdentities}graph-${resourceToken}'
  }
}

module functionApp 'functionapp.bicep' = {
  name: 'functionapp'
  params: {
    location: location
    tags: tags
    name: functionAppName
    planName: '${abbrs.webServerFarms}${resourceToken}'
    storageAccountName: storage.outputs.name
    storageBlobEndpoint: storage.outputs.blobEndpoint
    storageQueueEndpoint: storage.outputs.queueEndpoint
    deploymentContainerName: deploymentContainerName
    applicationInsightsName: monitoring.outputs.applicationInsightsName
    cosmosEndpoint: cosmos.outputs.endpoint
    cosmosDatabase: databaseName
    serviceAppIdUri: serviceAppIdUri
    graphClientId: graphClientId
    graphIdentityId: graphIdentity.outputs.id
    graphIdentityClientId: graphIdentity.outputs.clientId
    graphCredential: graphCredential
    graphCertificateName: graphCertificateName
    keyVaultName: keyVault.outputs.name
    publicBaseUrl: publicBaseUrl
    importMaxDeleteRatio: importMaxDeleteRatio
    consoleClientId: consoleClientId
    maximumInstanceCount: maximumInstanceCount
    instanceMemoryMB: instanceMemoryMB
  }
}

module roles 'roles.bicep' = {
  name: 'roles'
  params: {
    appPrincipalId: functionApp.outputs.principalId
    operatorPrincipalId: principalId
    graphCredential: graphCredential
    storageAccountName: storage.outputs.name
    cosmosAccountName: cosmos.outputs.name
    keyVaultName: keyVault.outputs.name
    applicationInsightsName: monitoring.outputs.applicationInsightsName
  }
}

output functionAppName string = functionApp.outputs.name
output functionAppUri string = functionApp.outputs.uri
output functionAppPrincipalId string = functionApp.outputs.principalId
output graphIdentityPrincipalId string = graphIdentity.outputs.principalId
output graphIdentityClientId string = graphIdentity.outputs.clientId
output cosmosAccountName string = cosmos.outputs.name
output cosmosEndpoint string = cosmos.outputs.endpoint
output cosmosDatabase string = databaseName
output keyVaultName string = keyVault.outputs.name
output keyVaultUri string = keyVault.outputs.uri
output applicationInsightsName string = monitoring.outputs.applicationInsightsName
output logAnalyticsName string = monitoring.outputs.logAnalyticsName
