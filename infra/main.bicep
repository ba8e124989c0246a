// Business Identity Provisioning Service: subscription-scoped entry point for `azd up`.
targetScope = 'subscription'

@minLength(1)
@maxLength(64)
@description('azd environment name; part of every resource name.')
param environmentName string

@minLength(1)
@description('Azure region of every resource.')
param location string

@description('App ID URI of the service application: the accepted token audience.')
param serviceAppIdUri string = 'api://business-identity-service'

@description('Application (client) id of the multi-tenant service application that calls Microsoft Graph.')
param graphClientId string = ''

@allowed(['managedIdentity', 'certificate'])
@description('How the service gets Graph tokens: managed identity as a federated client assertion (no secret anywhere), or a certificate.')
param graphCredential string = 'managedIdentity'

@allowed(['serverless', 'autoscale'])
param cosmosThroughputMode string = 'serverless'

@description('Database-level autoscale maximum (RU/s) when cosmosThroughputMode is autoscale.')
param cosmosAutoscaleMaxThroughput int = 4000

@allowed(['Enabled', 'Disabled'])
param cosmosPublicNetworkAccess string = 'Enabled'

@description('Public base URL; defaults to the function app host name.')
param publicBaseUrl string = ''

@description('Maximum instances of the Flex Consumption app.')
param maximumInstanceCount int = 100

var abbrs = loadJsonContent('abbreviations.json')
var resourceToken = toLower(uniqueString(subscription().id, environmentName, location))
var tags = { 'azd-env-name': environmentName }

resource rg 'Microsoft.Resources/resourceGroups@2024-03-01' = {
  name: '${abbrs.resourceGroup}${environmentName}'
  location: location
  tags: tags
}

module resources 'modules/resources.bicep' = {
  name: 'resources'
  scope: rg
  params: {
    location: location
    tags: tags
    resourceToken: resourceToken
    serviceAppIdUri: serviceAppIdUri
    graphClientId: graphClientId
    graphCredential: graphCredential
    cosmosThroughputMode: cosmosThroughputMode
    cosmosAutoscaleMaxThroughput: cosmosAutoscaleMaxThroughput
    cosmosPublicNetworkAccess: cosmosPublicNetworkAccess
    publicBaseUrl: publicBaseUrl
    maximumInstanceCount: maximumInstanceCount
  }
}

output AZURE_LOCATION string = location
output AZURE_TENANT_ID string = tenant().tenantId
output AZURE_RESOURCE_GROUP string = rg.name
output SERVICE_API_NAME string = resources.outputs.functionAppName
output SERVICE_API_URI string = resources.outputs.functionAppUri
output SERVICE_API_PRINCIPAL_ID string = resources.outputs.functionAppPrincipalId
output COSMOS_ENDPOINT string = resources.outputs.cosmosEndpoint
output COSMOS_DATABASE string = resources.outputs.cosmosDatabase
output KEY_VAULT_URI string = resources.outputs.keyVaultUri
