// Key Vault for the service application's Graph certificate, created in certificate mode only (the default
// managedIdentity mode stores nothing, so it has no vault). Access by Azure RBAC only, never by access
// policies. Soft delete is always on (90 days): `azd down --purge` purges the vault; without --purge, or
// with purge protection, a new `azd up` of the same environment needs another name (keyVaultNameSuffix).
param location string
param tags object
param name string
@description('Purge protection: a deleted vault, and its name, are kept for the retention period and cannot be purged. Irreversible once on.')
param purgeProtection bool
@description('Private networking: public network access off (the private endpoint is in network.bicep).')
param vnetEnabled bool

resource vault 'Microsoft.KeyVault/vaults@2023-07-01' = {
  name: name
  location: location
  tags: tags
  properties: {
    tenantId: subscription().tenantId
    sku: {
      family: 'A'
      name: 'standard'
    }
    enableRbacAuthorization: true
    enableSoftDelete: true
    softDeleteRetentionInDays: 90
    // The API refuses false; leaving it out keeps it off.
    enablePurgeProtection: purgeProtection ? true : null
    publicNetworkAccess: vnetEnabled ? 'Disabled' : 'Enabled'
    networkAcls: { defaultAction: vnetEnabled ? 'Deny' : 'Allow', bypass: 'AzureServices' }
  }
}

output name string = vault.name
output id string = vault.id
output uri string = vault.properties.vaultUri
