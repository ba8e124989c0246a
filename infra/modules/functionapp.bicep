// The Function App on the Flex Consumption plan (Linux, Node.js 22) with two user-assigned identities of
// identity.bicep: the app identity (deployment package, host storage, queues, telemetry, Cosmos DB, Key Vault
// references; its roles exist before the site) and the Graph identity. No system-assigned identity: its roles
// could only be granted after the site exists, and the first deployment would race their propagation.
// Every setting the code reads in Azure (lib/config/settings.ts) is deployable, in one of three ways
// (tests/unit/infra checks every row of the settings table):
// - derivedSettings: values the template computes from its resources and named parameters; they win;
// - tunableSettings: the production value of a setting operators tune; extraAppSettings replaces it;
// - extraAppSettings (azd environment value EXTRA_APP_SETTINGS, a JSON object): any other setting of the
//   table, by name, so a value set for it survives the next `azd provision` (siteConfig.appSettings
//   replaces the whole list on every provision; a value set by hand in the portal is wiped).
// None holds a secret: Cosmos DB, storage, Application Insights and Microsoft Graph are all reached with
// the managed identity.
// Flex Consumption takes the runtime from functionAppConfig: FUNCTIONS_WORKER_RUNTIME,
// FUNCTIONS_EXTENSION_VERSION and WEBSITE_RUN_FROM_PACKAGE must not be set (the platform rejects them).
// siteConfig holds only properties Flex Consumption documents: it rejects others (ftpsState, http20Enabled,
// scmMinTlsVersion, … — ARM error 51021); FTP is off through the publishing-credentials policies below.
param location string
param tags object
param name string
param planName string
param storageBlobEndpoint string
param storageQueueEndpoint string
param storageTableEndpoint string
param deploymentContainerName string
param applicationInsightsName string
param cosmosEndpoint string
param cosmosDatabase string
@description('Cosmos DB capacity mode (serverless or autoscale): the defaults of the bulk budgets follow it.')
param cosmosThroughputMode string
param serviceAppIdUri string
param graphClientId string
param graphIdentityId string
param graphIdentityClientId string
param appIdentityId string
param appIdentityClientId string
param graphCredential string
param graphCertificateName string
param keyVaultName string
@description('The key in the vault that wraps the tenants\' data keys.')
param fieldEncryptionKeyName string
param publicBaseUrl string
param importMaxDeleteRatio string
param consoleClientId string
param maximumInstanceCount int
param instanceMemoryMB int
@description('Always-ready instances of the HTTP function group (0 = none: the first request after idle starts an instance).')
param alwaysReadyHttp int
@description('Settings by name, merged into the list: they replace the tunable values below, never the derived ones.')
param extraAppSettings object
@description('Front Door profile id (its X-Azure-FDID header value); empty = no Front Door, the app takes traffic from anywhere.')
param frontDoorId string
@description('Resource id and region of the Application Insights component the background-queue metrics are sent to.')
param metricsResourceId string
param metricsRegion string
@description('Private networking: the subnet of the app\'s virtual network integration; empty = none.')
param virtualNetworkSubnetId string

resource plan 'Microsoft.Web/serverfarms@2024-04-01' = {
  name: planName
  location: location
  tags: tags
  kind: 'functionapp'
  sku: {
    tier: 'FlexConsumption'
    name: 'FC1'
  }
  properties: {
    reserved: true
  }
}

// The connection string only locates the component (it carries no key that grants anything):
// with DisableLocalAuth on the component, telemetry is accepted only with the identity's Entra token.
resource applicationInsights 'Microsoft.Insights/components@2020-02-02' existing = {
  name: applicationInsightsName
}

// The default host name of an app without a regional unique host name is <name>.azurewebsites.net.
// (The site cannot read its own defaultHostName in its own settings; the SERVICE_API_URI output reads it.)
var baseUrl = empty(publicBaseUrl) ? 'https://${name}.azurewebsites.net' : publicBaseUrl

// Settings the template computes from its resources and named parameters (extraAppSettings cannot replace them).
var derivedSettings = [
  // Host storage (timer schedules and leases, host state) with the app identity, by service URI as in
  // Microsoft's Flex Consumption samples; no account key anywhere. With private networking the URIs
  // resolve to the private endpoints.
  { name: 'AzureWebJobsStorage__blobServiceUri', value: storageBlobEndpoint }
  { name: 'AzureWebJobsStorage__queueServiceUri', value: storageQueueEndpoint }
  { name: 'AzureWebJobsStorage__tableServiceUri', value: storageTableEndpoint }
  { name: 'AzureWebJobsStorage__credential', value: 'managedidentity' }
  { name: 'AzureWebJobsStorage__clientId', value: appIdentityClientId }
  // Telemetry with Entra authentication as the app identity (Monitoring Metrics Publisher role in roles.bicep).
  { name: 'APPLICATIONINSIGHTS_CONNECTION_STRING', value: applicationInsights.properties.ConnectionString }
  { name: 'APPLICATIONINSIGHTS_AUTHENTICATION_STRING', value: 'ClientId=${appIdentityClientId};Authorization=AAD' }
  // DefaultAzureCredential (Cosmos DB, the background-work queue) uses only the managed identity, and
  // which one: the app identity (the Graph identity is chosen explicitly by GRAPH_MANAGED_IDENTITY_CLIENT_ID).
  { name: 'AZURE_CLIENT_ID', value: appIdentityClientId }
  { name: 'AZURE_TOKEN_CREDENTIALS', value: 'ManagedIdentityCredential' }
  // --- lib/config/settings.ts, the rows the template derives ---
  { name: 'PUBLIC_BASE_URL', value: baseUrl }
  { name: 'COSMOS_ENDPOINT', value: cosmosEndpoint }
  // Empty: the managed identity is used (Cosmos DB Built-in Data Contributor; local auth is off).
  { name: 'COSMOS_KEY', value: '' }
  { name: 'COSMOS_DATABASE', value: cosmosDatabase }
  { name: 'KEY_VAULT_URL', value: 'https://${keyVaultName}${environment().suffixes.keyvaultDns}/' }
  { name: 'FIELD_ENCRYPTION_KEY_NAME', value: fieldEncryptionKeyName }
  // Empty by default: in Azure the service accepts the client id (the aud of v2.0 tokens) and, only when
  // this is set, a tenant-unique App ID URI; it refuses to start with the local api://business-identity-service.
  { name: 'SERVICE_APP_ID_URI', value: serviceAppIdUri }
  { name: 'SERVICE_CLIENT_ID', value: graphClientId }
  { name: 'GRAPH_CREDENTIAL', value: graphCredential }
  { name: 'GRAPH_CLIENT_ID', value: graphClientId }
  // managedIdentity mode: ManagedIdentityCredential({ clientId }) with the user-assigned Graph identity.
  { name: 'GRAPH_MANAGED_IDENTITY_CLIENT_ID', value: graphIdentityClientId }
  // Empty: client secrets are for the local stack only.
  { name: 'GRAPH_CLIENT_SECRET', value: '' }
  // Certificate mode: the PEM (private key and certificate) comes from the deployment's Key Vault through a
  // Key Vault reference resolved with the app's identity (Key Vault Secrets User in roles.bicep); the
  // certificate must be created with content type PEM. Nothing is stored in the setting itself.
  { name: 'GRAPH_CERTIFICATE', value: graphCredential == 'certificate' ? '@Microsoft.KeyVault(VaultName=${keyVaultName};SecretName=${graphCertificateName})' : '' }
  // Empty: a file path is for hosts that can place the PEM on disk (Flex Consumption cannot).
  { name: 'GRAPH_CERTIFICATE_PATH', value: '' }
  // Background work: the timers plan units on the background-work queue, backgroundWork does them. Identity-based
  // connection (Storage Queue Data Contributor in roles.bicep); no connection string or key.
  { name: 'BACKGROUND_QUEUE__queueServiceUri', value: storageQueueEndpoint }
  { name: 'BACKGROUND_QUEUE__credential', value: 'managedidentity' }
  { name: 'BACKGROUND_QUEUE__clientId', value: appIdentityClientId }
  { name: 'COSMOS_THROUGHPUT_MODE', value: cosmosThroughputMode }
  { name: 'IMPORT_MAX_DELETE_RATIO', value: importMaxDeleteRatio }
  // The administrator console (/console): its SPA registration; administrators sign in with any work account
  // of a registered tenant (the service refuses tokens of other tenants).
  { name: 'CONSOLE_CLIENT_ID', value: consoleClientId }

  // The background-queue measurement (functions/measureBackgroundQueue.ts) sends its metrics to the Azure
  // Monitor metrics store of the Application Insights component (Monitoring Metrics Publisher in roles.bicep):
  // metrics, unlike log lines, are neither sampled nor stopped by the workspace's daily cap.
  { name: 'METRICS_RESOURCE_ID', value: metricsResourceId }
  { name: 'METRICS_REGION', value: metricsRegion }
]

// The production value of each setting operators tune; an entry of extraAppSettings with the same name replaces it.
var tunableSettings = [
  { name: 'AUTH_AUTHORITY', value: 'https://login.microsoftonline.com' }
  { name: 'GRAPH_BASE_URL', value: 'https://graph.microsoft.com' }
  { name: 'RETENTION_INACTIVE_DAYS', value: '90' }
  { name: 'RETENTION_SCHEDULE', value: '0 0 2 * * *' }
  { name: 'RESOLVE_PENDING_LINKS_SCHEDULE', value: '0 */5 * * * *' }
  { name: 'PENDING_LINK_BACKOFF_SECONDS', value: '300' }
  { name: 'PENDING_LINK_BACKOFF_MAX_SECONDS', value: '14400' }
  { name: 'SCIM_RATE_LIMIT_PER_SECOND', value: '50' }
  { name: 'SCIM_MAX_BODY_BYTES', value: '1048576' }
  { name: 'GRAPHQL_MAX_BODY_BYTES', value: '8388608' }
  { name: 'GRAPHQL_MAX_QUERY_BYTES', value: '65536' }
  { name: 'GRAPHQL_INTROSPECTION', value: 'false' }
  { name: 'MAX_REQUESTS_IN_FLIGHT', value: '32' }
  { name: 'GRAPHQL_REQUESTS_PER_MINUTE', value: '600' }
  { name: 'BULK_ITEMS_PER_MINUTE', value: '500000' }
  { name: 'IMPORT_MAX_IDENTITIES', value: '1000000' }
  { name: 'ASSOCIATION_MAX_PAIRS', value: '20000' }
  { name: 'LOG_LEVEL', value: 'info' }
  { name: 'CONSOLE_AUTHORITY_TENANT', value: 'organizations' }
]

// extraAppSettings, as name/value pairs (numbers and booleans written as text), without the derived names.
var derivedNames = map(derivedSettings, s => s.name)
var extraSettings = filter(map(items(extraAppSettings), e => { name: e.key, value: string(e.value) }), e => !contains(derivedNames, e.name))
var extraNames = map(extraSettings, e => e.name)
var appSettings = concat(derivedSettings, filter(tunableSettings, s => !contains(extraNames, s.name)), extraSettings)

// With a Front Door: only its back end (service tag AzureFrontDoor.Backend) carrying this profile's id in
// X-Azure-FDID reaches the app; any other caller gets 403. The service tag alone would admit every Front Door
// profile of every customer. Without one: no restriction.
var accessRestrictions = empty(frontDoorId) ? [] : [
  {
    name: 'front-door-only'
    action: 'Allow'
    priority: 100
    tag: 'ServiceTag'
    ipAddress: 'AzureFrontDoor.Backend'
    headers: {
      'x-azure-fdid': [
        frontDoorId
      ]
    }
  }
]

resource app 'Microsoft.Web/sites@2024-04-01' = {
  name: name
  location: location
  tags: union(tags, { 'azd-service-name': 'api' })
  kind: 'functionapp,linux'
  identity: {
    type: 'UserAssigned'
    userAssignedIdentities: {
      '${appIdentityId}': {}
      '${graphIdentityId}': {}
    }
  }
  properties: {
    serverFarmId: plan.id
    httpsOnly: true
    // Key Vault references (GRAPH_CERTIFICATE in certificate mode) resolve with the app identity.
    keyVaultReferenceIdentity: appIdentityId
    // Private networking: outbound calls go through the virtual network, to the private endpoints.
    virtualNetworkSubnetId: empty(virtualNetworkSubnetId) ? null : virtualNetworkSubnetId
    siteConfig: {
      minTlsVersion: '1.2'
      ipSecurityRestrictions: accessRestrictions
      appSettings: appSettings
    }
    functionAppConfig: {
      deployment: {
        storage: {
          type: 'blobContainer'
          // primaryEndpoints.blob ends with '/'.
          value: '${storageBlobEndpoint}${deploymentContainerName}'
          authentication: {
            type: 'UserAssignedIdentity'
            userAssignedIdentityResourceId: appIdentityId
          }
        }
      }
      scaleAndConcurrency: {
        maximumInstanceCount: maximumInstanceCount
        instanceMemoryMB: instanceMemoryMB
        // Always-ready instances of the HTTP group (every HTTP function scales together, as group `http`):
        // the first SCIM request after idle meets a started host. Billed while idle (docs/operations.md).
        alwaysReady: alwaysReadyHttp > 0 ? [{ name: 'http', instanceCount: alwaysReadyHttp }] : []
      }
      runtime: {
        name: 'node'
        version: '22'
      }
    }
  }
}

// No basic-auth (publishing profile) deployment: azd and the Azure CLI deploy with an Entra token.
resource ftpCredentials 'Microsoft.Web/sites/basicPublishingCredentialsPolicies@2024-04-01' = {
  parent: app
  name: 'ftp'
  properties: {
    allow: false
  }
}

resource scmCredentials 'Microsoft.Web/sites/basicPublishingCredentialsPolicies@2024-04-01' = {
  parent: app
  name: 'scm'
  properties: {
    allow: false
  }
}

output name string = app.name
output uri string = 'https://${app.properties.defaultHostName}'
