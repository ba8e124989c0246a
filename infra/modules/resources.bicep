// Every resource of one environment, in one resource group.
param location string
param tags object
param resourceToken string
param serviceAppIdUri string
param graphClientId string
param graphCredential string
param cosmosThroughputMode string
param cosmosAutoscaleMaxThroughput int
param cosmosPublicNetworkAccess string
param publicBaseUrl string
param maximumInstanceCount int

var abbrs = loadJsonContent('../abbreviations.json')
var functionAppName = '${abbrs.functionApp}${resourceToken}'
var deploymentContainer = 'deployment-package'
var databaseName = 'business-identities'

module monitoring 'monitoring.bicep' = {
  name: 'monitoring'
  params: {
    location: location
    tags: tags
    logAnalyticsName: '${abbrs.logAnalytics}${resourceToken}'
    applicationInsightsName: '${abbrs.applicationInsights}${resourceToken}'
  }
}

module storage 'storage.bicep' = {
  name: 'storage'
  params: {
    location: location
    tags: tags
    name: '${abbrs.storageAccount}${resourceToken}'
    deploymentContainer: deploymentContainer
  }
}

module cosmos 'cosmos.bicep' = {
  name: 'cosmos'
  params: {
    location: location
    tags: tags
    accountName: '${abbrs.cosmosAccount}${resourceToken}'
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
    name: '${abbrs.keyVault}${resourceToken}'
  }
}

module functionApp 'functionapp.bicep' = {
  name: 'functionapp'
  params: {
    location: location
    tags: tags
    name: functionAppName
    planName: '${abbrs.appServicePlan}${resourceToken}'
    storageAccountName: storage.outputs.name
    storageBlobEndpoint: storage.outputs.blobEndpoint
    deploymentContainer: deploymentContainer
    applicationInsightsName: monitoring.outputs.applicationInsightsName
    cosmosEndpoint: cosmos.outputs.endpoint
    cosmosDatabase: databaseName
    serviceAppIdUri: serviceAppIdUri
    graphClientId: graphClientId
    graphCredential: graphCredential
    publicBaseUrl: publicBaseUrl
    maximumInstanceCount: maximumInstanceCount
  }
}

module roles 'roles.bicep' = {
  name: 'roles'
  params: {
    principalId: functionApp.outputs.principalId
    storageAccountName: storage.outputs.name
    cosmosAccountName: cosmos.outputs.name
    keyVaultName: keyVault.outputs.name
    applicationInsightsName: monitoring.outputs.applicationInsightsName
  }
}

output functionAppName string = functionApp.outputs.name
output functionAppUri string = functionApp.outputs.uri
output functionAppPrincipalId string = functionApp.outputs.principalId
output cosmosEndpoint string = cosmos.outputs.endpoint
output cosmosDatabase string = databaseName
output keyVaultUri string = keyVault.outputs.uri
