// Every resource of one environment, in one resource group.
param environmentName string
param location string
param tags object
param principalId string
param operatorCosmosDataRole bool
param serviceAppIdUri string
param graphClientId string
param graphCredential string
param graphCertificateName string
param publicBaseUrl string
param importMaxDeleteRatio string
param consoleClientId string
param cosmosThroughputMode string
param cosmosAutoscaleMaxThroughput int
param cosmosContainerAutoscaleMaxThroughput int
param vnetEnabled bool
param maximumInstanceCount int
param instanceMemoryMB int
param keyVaultNameSuffix string
param keyVaultPurgeProtection bool
param alertEmail string
param logDailyCapGb int
param alwaysReadyHttp int
param extraAppSettings object
param zoneRedundant bool
param frontDoorSku string
param frontDoorRateLimitPerMinute int
param availabilityTest bool

var abbrs = loadJsonContent('../abbreviations.json')
// 13 lowercase characters, stable for a subscription + resource group + environment.
var resourceToken = toLower(uniqueString(subscription().id, resourceGroup().id, environmentName))
var functionAppName = '${abbrs.webSitesFunctions}${resourceToken}'
var deploymentContainerName = 'app-package'
// Same default as lib/config/settings.ts (COSMOS_DATABASE).
var databaseName = 'business-identities'
var certificateMode = graphCredential == 'certificate'
// The key that wraps every tenant's data key (FIELD_ENCRYPTION_KEY_NAME).
var fieldEncryptionKeyName = 'field-encryption'
var keyVaultName = '${abbrs.keyVaultVaults}${resourceToken}${keyVaultNameSuffix}'
var frontDoorEnabled = frontDoorSku != 'None'
// The address tenants call: a custom domain, else the Front Door endpoint, else the app's host name.
var publicUrl = !empty(publicBaseUrl) ? publicBaseUrl : (frontDoorEnabled ? 'https://${frontDoor.outputs.hostName}' : 'https://${functionAppName}.azurewebsites.net')

module monitoring 'monitoring.bicep' = {
  name: 'monitoring'
  params: {
    location: location
    tags: tags
    logAnalyticsName: '${abbrs.operationalInsightsWorkspaces}${resourceToken}'
    applicationInsightsName: '${abbrs.insightsComponents}${resourceToken}'
    dailyCapGb: logDailyCapGb
  }
}

module storage 'storage.bicep' = {
  name: 'storage'
  params: {
    location: location
    tags: tags
    name: '${abbrs.storageStorageAccounts}${resourceToken}'
    deploymentContainerName: deploymentContainerName
    vnetEnabled: vnetEnabled
    zoneRedundant: zoneRedundant
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
    containerAutoscaleMaxThroughput: cosmosContainerAutoscaleMaxThroughput
    vnetEnabled: vnetEnabled
    zoneRedundant: zoneRedundant
  }
}

// Every mode: the vault holds the key that wraps the tenants' data keys (field encryption); in certificate
// mode also the Graph certificate.
module keyVault 'keyvault.bicep' = {
  name: 'keyvault'
  params: {
    location: location
    tags: tags
    name: keyVaultName
    purgeProtection: keyVaultPurgeProtection
    vnetEnabled: vnetEnabled
    fieldEncryptionKeyName: fieldEncryptionKeyName
  }
}

// Private networking (the production setting): the virtual network, the app's integration subnet and the
// private endpoints of Cosmos DB, storage and Key Vault.
module network 'network.bicep' = if (vnetEnabled) {
  name: 'network'
  params: {
    location: location
    tags: tags
    vnetName: '${abbrs.networkVirtualNetworks}${resourceToken}'
    privateEndpointPrefix: '${abbrs.networkPrivateEndpoints}${resourceToken}-'
    storageAccountId: storage.outputs.id
    cosmosAccountId: cosmos.outputs.id
    keyVaultId: resourceId('Microsoft.KeyVault/vaults', keyVaultName)
  }
  dependsOn: [
    keyVault
  ]
}

module appIdentity 'identity.bicep' = {
  name: 'app-identity'
  params: {
    location: location
    tags: tags
    name: '${abbrs.managedIdentityUserAssignedIdentities}api-${resourceToken}'
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

// Optional edge: Front Door with a WAF policy; the app then accepts this profile only.
module frontDoor 'frontdoor.bicep' = if (frontDoorEnabled) {
  name: 'frontdoor'
  params: {
    tags: tags
    // Literals the module's @allowed accepts (frontDoorSku's type includes 'None').
    sku: frontDoorSku == 'Premium_AzureFrontDoor' ? 'Premium_AzureFrontDoor' : 'Standard_AzureFrontDoor'
    profileName: '${abbrs.cdnProfiles}${resourceToken}'
    endpointName: '${abbrs.cdnProfilesEndpoints}${resourceToken}'
    wafPolicyName: '${abbrs.networkFrontDoorWebApplicationFirewallPolicies}${resourceToken}'
    originHostName: '${functionAppName}.azurewebsites.net'
    rateLimitPerMinute: frontDoorRateLimitPerMinute
  }
}

module functionApp 'functionapp.bicep' = {
  name: 'functionapp'
  params: {
    location: location
    tags: tags
    name: functionAppName
    planName: '${abbrs.webServerFarms}${resourceToken}'
    storageBlobEndpoint: storage.outputs.blobEndpoint
    storageQueueEndpoint: storage.outputs.queueEndpoint
    storageTableEndpoint: storage.outputs.tableEndpoint
    deploymentContainerName: deploymentContainerName
    applicationInsightsName: monitoring.outputs.applicationInsightsName
    cosmosEndpoint: cosmos.outputs.endpoint
    cosmosDatabase: databaseName
    cosmosThroughputMode: cosmosThroughputMode
    serviceAppIdUri: serviceAppIdUri
    graphClientId: graphClientId
    graphIdentityId: graphIdentity.outputs.id
    graphIdentityClientId: graphIdentity.outputs.clientId
    appIdentityId: appIdentity.outputs.id
    appIdentityClientId: appIdentity.outputs.clientId
    graphCredential: graphCredential
    graphCertificateName: graphCertificateName
    keyVaultName: keyVaultName
    fieldEncryptionKeyName: fieldEncryptionKeyName
    // A custom domain wins; otherwise the Front Door endpoint when there is one (the app's own host name answers 403 then).
    publicBaseUrl: !empty(publicBaseUrl) ? publicBaseUrl : (frontDoorEnabled ? 'https://${frontDoor.outputs.hostName}' : '')
    frontDoorId: frontDoorEnabled ? frontDoor.outputs.frontDoorId : ''
    importMaxDeleteRatio: importMaxDeleteRatio
    consoleClientId: consoleClientId
    maximumInstanceCount: maximumInstanceCount
    instanceMemoryMB: instanceMemoryMB
    alwaysReadyHttp: alwaysReadyHttp
    extraAppSettings: extraAppSettings
    metricsResourceId: monitoring.outputs.applicationInsightsId
    metricsRegion: location
    virtualNetworkSubnetId: vnetEnabled ? network.outputs.appSubnetId : ''
  }
  // The app identity's roles first: the site's first start and azd's first deployment use them at once.
  // With private networking, the private endpoints too: the first start reaches storage through them.
  dependsOn: [
    roles
    network
  ]
}

module roles 'roles.bicep' = {
  name: 'roles'
  params: {
    appPrincipalId: appIdentity.outputs.principalId
    operatorPrincipalId: principalId
    operatorCosmosDataRole: operatorCosmosDataRole
    graphCredential: graphCredential
    storageAccountName: storage.outputs.name
    cosmosAccountName: cosmos.outputs.name
    cosmosDatabaseName: databaseName
    keyVaultName: keyVaultName
    fieldEncryptionKeyName: fieldEncryptionKeyName
    applicationInsightsName: monitoring.outputs.applicationInsightsName
  }
  dependsOn: [
    keyVault
  ]
}

module diagnostics 'diagnostics.bicep' = {
  name: 'diagnostics'
  params: {
    location: location
    tags: tags
    logAnalyticsName: monitoring.outputs.logAnalyticsName
    applicationInsightsName: monitoring.outputs.applicationInsightsName
    storageAccountName: storage.outputs.name
    cosmosAccountName: cosmos.outputs.name
    keyVaultName: keyVaultName
    actionGroupName: '${abbrs.insightsActionGroups}${resourceToken}'
    alertPrefix: '${abbrs.insightsScheduledQueryRules}${resourceToken}'
    metricAlertPrefix: '${abbrs.insightsMetricAlerts}${resourceToken}'
    alertEmail: alertEmail
    logDailyCapGb: logDailyCapGb
    availabilityTest: availabilityTest
    publicUrl: publicUrl
    webTestName: '${abbrs.insightsWebTests}${resourceToken}'
  }
  dependsOn: [
    keyVault
  ]
}

output functionAppName string = functionApp.outputs.name
output functionAppUri string = functionApp.outputs.uri
output appIdentityPrincipalId string = appIdentity.outputs.principalId
output appIdentityClientId string = appIdentity.outputs.clientId
output graphIdentityPrincipalId string = graphIdentity.outputs.principalId
output graphIdentityClientId string = graphIdentity.outputs.clientId
output cosmosAccountName string = cosmos.outputs.name
output cosmosEndpoint string = cosmos.outputs.endpoint
output cosmosDatabase string = databaseName
output keyVaultName string = keyVaultName
output keyVaultUri string = 'https://${keyVaultName}${environment().suffixes.keyvaultDns}/'
output applicationInsightsName string = monitoring.outputs.applicationInsightsName
output logAnalyticsName string = monitoring.outputs.logAnalyticsName
output frontDoorEndpoint string = frontDoorEnabled ? 'https://${frontDoor.outputs.hostName}' : ''
