// Business Identity Provisioning Service: entry point for `azd up` / `azd provision`.
// Subscription scope with one resource group per azd environment, as the azd templates do
// (e.g. functions-quickstart-javascript-azd); every resource is in modules/resources.bicep.
// No key, secret or connection string with a key is read, set or output anywhere in this template.
targetScope = 'subscription'

@minLength(1)
@maxLength(64)
@description('azd environment name (AZURE_ENV_NAME); part of the resource group name and of the resource token.')
param environmentName string

// Regions offering the Flex Consumption plan (`az functionapp list-flexconsumption-locations -o table`, as
// listed by Microsoft's Flex Consumption azd samples): a region without it fails here, before anything exists,
// not at the Function App after the other resources were created. Extend the list as Azure adds regions.
@minLength(1)
@allowed([
  'australiaeast'
  'australiasoutheast'
  'brazilsouth'
  'canadacentral'
  'centralindia'
  'centralus'
  'eastasia'
  'eastus'
  'eastus2'
  'francecentral'
  'germanywestcentral'
  'italynorth'
  'japaneast'
  'koreacentral'
  'northcentralus'
  'northeurope'
  'norwayeast'
  'southafricanorth'
  'southcentralus'
  'southeastasia'
  'southindia'
  'spaincentral'
  'swedencentral'
  'uaenorth'
  'uksouth'
  'ukwest'
  'westcentralus'
  'westeurope'
  'westus'
  'westus2'
  'westus3'
])
@description('Region of every resource; it must offer the Flex Consumption plan (az functionapp list-flexconsumption-locations).')
@metadata({ azd: { type: 'location' } })
param location string

@description('Resource group name; empty = rg-<environmentName>.')
param resourceGroupName string = ''

@description('Object id of the operator identity running azd (AZURE_PRINCIPAL_ID). When set, it may peek and clear the background-work queues (Storage Queue Data Reader and Message Processor) and, with operatorCosmosDataRole, use `npm run ops` with `az login`. Empty = no operator role.')
param principalId string = ''

@description('Give the operator (principalId) a standing Cosmos DB Built-in Data Contributor role on the database: on for a first trial; off in production, where operators get it just in time (docs/operations.md, "Operator access").')
param operatorCosmosDataRole bool = true

@description('Optional tenant-unique App ID URI accepted as token audience besides the client id (SERVICE_APP_ID_URI); empty = the client id only. Never api://business-identity-service (the service refuses to start with it in Azure), see infra/entra-app.md.')
param serviceAppIdUri string = ''

@description('Application (client) id of the multi-tenant service application (GRAPH_CLIENT_ID, also SERVICE_CLIENT_ID). Empty on the first `azd provision`, before infra/scripts/create-entra-app.sh has run.')
param graphClientId string = ''

@allowed([
  'managedIdentity'
  'certificate'
])
@description('How the service gets Microsoft Graph tokens in customer tenants: the user-assigned Graph identity as a federated credential of the service application (default, nothing to store or rotate), or a certificate.')
param graphCredential string = 'managedIdentity'

@description('Certificate mode only: name of the certificate in the Key Vault of the deployment (created with content type PEM); the app reads it through a Key Vault reference. See infra/entra-app.md.')
param graphCertificateName string = 'graph-client'

@description('Public base URL of the service (custom domain or front door); empty = https://<function app default host name>.')
param publicBaseUrl string = ''

@description('IMPORT_MAX_DELETE_RATIO: refuse an import that would delete more than this share of a source, e.g. 0.2; empty = no limit.')
param importMaxDeleteRatio string = ''

@description('Client id of the administrator console\'s single-page application registration (infra/scripts/create-entra-app.sh prints it); empty leaves the console unconfigured.')
param consoleClientId string = ''

@allowed([
  'serverless'
  'autoscale'
])
@description('Cosmos DB capacity: serverless (default, for a first trial) or provisioned autoscale throughput (for a shared production service: priority-based execution, see docs/security.md). Fixed when the account is created.')
param cosmosThroughputMode string = 'serverless'

@minValue(1000)
@maxValue(1000000)
@description('Autoscale mode: maximum RU/s shared by the small containers (integrations, tenants, audit); the minimum is a tenth of it.')
param cosmosAutoscaleMaxThroughput int = 1000

@minValue(1000)
@maxValue(1000000)
@description('Autoscale mode: maximum RU/s of each container that bulk work shares with SCIM (identities, imports, links), each its own throughput; the minimum is a tenth of it.')
param cosmosContainerAutoscaleMaxThroughput int = 4000

@description('Private networking, the production setting: a virtual network with the Function App integrated, private endpoints and DNS zones for Cosmos DB, blob/queue/table storage and Key Vault, whose public network access is then off. Off for a first trial (docs/operations.md, "Private networking").')
param vnetEnabled bool = false

@minValue(1)
@maxValue(1000)
@description('Maximum instances of the Flex Consumption app (Flex Consumption accepts 1 to 1000; the floor of 40 was the preview\'s).')
param maximumInstanceCount int = 100

@minValue(0)
@maxValue(20)
@description('Always-ready instances of the HTTP function group: 0 (default) = the first request after idle pays a cold start; 1 in the production preset (billed while idle, docs/operations.md).')
param alwaysReadyHttp int = 0

@allowed([
  2048
  4096
])
@description('Instance memory of the Flex Consumption app (MB): 2048 or 4096. A 200,000-identity import body is up to 100 MB of JSON, parsed beside the running service; 512 MB instances do not hold it.')
param instanceMemoryMB int = 2048

@maxLength(8)
@description('Appended to the Key Vault name, so an environment can be created again while its deleted vault is kept (soft delete, purge protection). Lower-case letters and digits.')
param keyVaultNameSuffix string = ''

@description('Purge protection on the Key Vault (irreversible; the name is then kept 90 days after `azd down`): on by default, since the vault holds the key of every personal number. Off only for a throwaway trial; a re-creation needs a keyVaultNameSuffix.')
param keyVaultPurgeProtection bool = true

@description('E-mail address the alerts (poison queue, 5xx rate, Cosmos DB 429 rate, oldest background message) are sent to; empty = alerts show in Azure Monitor only.')
param alertEmail string = ''

@minValue(1)
@maxValue(1000)
@description('Daily ingestion cap of the Log Analytics workspace in GB. When it is reached, ingestion and the log alerts stop until the workspace\'s reset hour (an alert says so; the background alerts read metrics and go on): set it above a normal day (docs/operations.md, "Logs and metrics").')
param logDailyCapGb int = 5

// A JSON object in text rather than an object parameter: azd reads every parameter from an environment value,
// and only recent azd versions parse an object out of one; an unset value is then '' here, not a failed deployment.
@description('Any setting of docs/configuration.md by name, as the text of one JSON object (azd env value EXTRA_APP_SETTINGS, e.g. {"SCIM_TENANT_RATE_LIMIT_PER_SECOND":"20"}); empty = none. Merged into the app settings on every provision, replacing the template\'s value of a tunable setting; settings the template derives (endpoints, identities, the named parameters above) are not replaced.')
param extraAppSettings string = ''

@description('Zone redundancy, fixed when each resource is created: Cosmos DB (both modes, in regions with availability zones) and the storage account (Standard_ZRS instead of Standard_LRS). On in the production preset.')
param zoneRedundant bool = false

@allowed([
  'None'
  'Standard_AzureFrontDoor'
  'Premium_AzureFrontDoor'
])
@description('Azure Front Door in front of the app, with a WAF policy (rate limit per client address; Premium adds the managed rule sets): None (default), Standard or Premium. The app then accepts only this Front Door, and PUBLIC_BASE_URL is its endpoint unless publicBaseUrl is set.')
param frontDoorSku string = 'None'

@description('An availability test of GET /health on the public address from three locations every 5 minutes, with an alert when two fail: it sees a host that does not run at all. Off for a trial (billed per run), on in the production preset.')
param availabilityTest bool = false

@minValue(100)
@maxValue(100000)
@description('Front Door WAF: requests per minute one client address may send before it is blocked for the rest of the minute.')
param frontDoorRateLimitPerMinute int = 6000

var abbrs = loadJsonContent('abbreviations.json')
var tags = { 'azd-env-name': environmentName }

resource rg 'Microsoft.Resources/resourceGroups@2024-03-01' = {
  name: !empty(resourceGroupName) ? resourceGroupName : '${abbrs.resourcesResourceGroups}${environmentName}'
  location: location
  tags: tags
}

module resources 'modules/resources.bicep' = {
  name: 'resources'
  scope: rg
  params: {
    environmentName: environmentName
    location: location
    tags: tags
    principalId: principalId
    operatorCosmosDataRole: operatorCosmosDataRole
    serviceAppIdUri: serviceAppIdUri
    graphClientId: graphClientId
    graphCredential: graphCredential
    graphCertificateName: graphCertificateName
    publicBaseUrl: publicBaseUrl
    importMaxDeleteRatio: importMaxDeleteRatio
    consoleClientId: consoleClientId
    cosmosThroughputMode: cosmosThroughputMode
    cosmosAutoscaleMaxThroughput: cosmosAutoscaleMaxThroughput
    cosmosContainerAutoscaleMaxThroughput: cosmosContainerAutoscaleMaxThroughput
    vnetEnabled: vnetEnabled
    maximumInstanceCount: maximumInstanceCount
    instanceMemoryMB: instanceMemoryMB
    keyVaultNameSuffix: keyVaultNameSuffix
    keyVaultPurgeProtection: keyVaultPurgeProtection
    alertEmail: alertEmail
    logDailyCapGb: logDailyCapGb
    alwaysReadyHttp: alwaysReadyHttp
    extraAppSettings: json(empty(extraAppSettings) ? '{}' : extraAppSettings)
    zoneRedundant: zoneRedundant
    frontDoorSku: frontDoorSku
    frontDoorRateLimitPerMinute: frontDoorRateLimitPerMinute
    availabilityTest: availabilityTest
  }
}

// Written to the azd environment (.azure/<env>/.env). Names and endpoints only: nothing here grants access.
output AZURE_LOCATION string = location
output AZURE_TENANT_ID string = tenant().tenantId
output AZURE_RESOURCE_GROUP string = rg.name
output SERVICE_API_NAME string = resources.outputs.functionAppName
output SERVICE_API_URI string = resources.outputs.functionAppUri
// The app's user-assigned identity (data-plane roles in modules/roles.bicep).
output SERVICE_API_PRINCIPAL_ID string = resources.outputs.appIdentityPrincipalId
output SERVICE_API_IDENTITY_CLIENT_ID string = resources.outputs.appIdentityClientId
// Subject of the Entra application's federated credential (infra/scripts/create-entra-app.sh reads it).
output GRAPH_IDENTITY_PRINCIPAL_ID string = resources.outputs.graphIdentityPrincipalId
output GRAPH_MANAGED_IDENTITY_CLIENT_ID string = resources.outputs.graphIdentityClientId
output COSMOS_ACCOUNT_NAME string = resources.outputs.cosmosAccountName
output COSMOS_ENDPOINT string = resources.outputs.cosmosEndpoint
output COSMOS_DATABASE string = resources.outputs.cosmosDatabase
output AZURE_KEY_VAULT_NAME string = resources.outputs.keyVaultName
output AZURE_KEY_VAULT_ENDPOINT string = resources.outputs.keyVaultUri
output APPLICATIONINSIGHTS_NAME string = resources.outputs.applicationInsightsName
output LOG_ANALYTICS_WORKSPACE_NAME string = resources.outputs.logAnalyticsName
// The Front Door endpoint (empty without one): the address tenants configure.
output FRONT_DOOR_ENDPOINT string = resources.outputs.frontDoorEndpoint
