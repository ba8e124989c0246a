// The Function App on the Flex Consumption plan (Linux, Node.js 22), system-assigned identity.
// Every setting the code reads (lib/config/settings.ts SETTING_NAMES) is set here; none holds a secret.
param location string
param tags object
param name string
param planName string
param storageAccountName string
param storageBlobEndpoint string
param deploymentContainer string
param applicationInsightsName string
param cosmosEndpoint string
param cosmosDatabase string
param serviceAppIdUri string
param graphClientId string
param graphCredential string
param publicBaseUrl string
param maximumInstanceCount int

resource plan 'Microsoft.Web/serverfarms@2024-04-01' = {
  name: planName
  location: location
  tags: tags
  kind: 'functionapp'
  sku: { tier: 'FlexConsumption', name: 'FC1' }
  properties: { reserved: true }
}

// Read here rather than passed as an output: it identifies the resource, and with local auth disabled grants nothing.
resource applicationInsights 'Microsoft.Insights/components@2020-02-02' existing = {
  name: applicationInsightsName
}

var baseUrl = empty(publicBaseUrl) ? 'https://${name}.azurewebsites.net' : publicBaseUrl

resource app 'Microsoft.Web/sites@2024-04-01' = {
  name: name
  location: location
  tags: union(tags, { 'azd-service-name': 'api' })
  kind: 'functionapp,linux'
  identity: { type: 'SystemAssigned' }
  properties: {
    serverFarmId: plan.id
    httpsOnly: true
    siteConfig: {
      minTlsVersion: '1.2'
      ftpsState: 'Disabled'
      http20Enabled: true
      appSettings: [
        { name: 'AzureWebJobsStorage__accountName', value: storageAccountName }
        { name: 'APPLICATIONINSIGHTS_CONNECTION_STRING', value: applicationInsights.properties.ConnectionString }
        { name: 'APPLICATIONINSIGHTS_AUTHENTICATION_STRING', value: 'Authorization=AAD' }
        { name: 'PUBLIC_BASE_URL', value: baseUrl }
        { name: 'COSMOS_ENDPOINT', value: cosmosEndpoint }
        { name: 'COSMOS_KEY', value: '' }
        { name: 'COSMOS_DATABASE', value: cosmosDatabase }
        { name: 'AUTH_AUTHORITY', value: 'https://login.microsoftonline.com' }
        { name: 'SERVICE_APP_ID_URI', value: serviceAppIdUri }
        { name: 'SERVICE_CLIENT_ID', value: graphClientId }
        { name: 'GRAPH_BASE_URL', value: 'https://graph.microsoft.com' }
        { name: 'GRAPH_CREDENTIAL', value: graphCredential }
        { name: 'GRAPH_CLIENT_ID', value: graphClientId }
        { name: 'GRAPH_CLIENT_SECRET', value: '' }
        { name: 'GRAPH_CERTIFICATE_PATH', value: '' }
        { name: 'RETENTION_INACTIVE_DAYS', value: '90' }
        { name: 'RETENTION_SCHEDULE', value: '0 0 2 * * *' }
        { name: 'RESOLVE_PENDING_LINKS_SCHEDULE', value: '0 */5 * * * *' }
        { name: 'PENDING_LINK_BATCH_LIMIT', value: '5000' }
        { name: 'SCIM_RATE_LIMIT_PER_SECOND', value: '50' }
        { name: 'SCIM_MAX_BODY_BYTES', value: '1048576' }
        { name: 'GRAPHQL_MAX_BODY_BYTES', value: '104857600' }
        { name: 'GRAPHQL_INTROSPECTION', value: 'false' }
        { name: 'IMPORT_MAX_DELETE_RATIO', value: '' }
        { name: 'IMPORT_MAX_IDENTITIES', value: '250000' }
        { name: 'LOG_LEVEL', value: 'info' }
      ]
    }
    functionAppConfig: {
      deployment: {
        storage: {
          type: 'blobContainer'
          value: '${storageBlobEndpoint}${deploymentContainer}'
          authentication: { type: 'SystemAssignedIdentity' }
        }
      }
      scaleAndConcurrency: {
        maximumInstanceCount: maximumInstanceCount
        instanceMemoryMB: 2048
      }
      runtime: { name: 'node', version: '22' }
    }
  }
}

output name string = app.name
output uri string = 'https://${app.properties.defaultHostName}'
output principalId string = app.identity.principalId
