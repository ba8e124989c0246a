// Key Vault for the service application's Graph certificate (certificate mode only; the default
// managedIdentity mode stores nothing). Access by Azure RBAC only, never by access policies.
param location string
param tags object
param name string

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
    // Irreversible: a deleted vault (and the name) is kept for the retention period and cannot be purged.
    enablePurgeProtection: true
    publicNetworkAccess: 'Enabled'
    networkAcls: {
      defaultAction: 'Allow'
      bypass: 'AzureServices'
    }
  }
}

output name string = vault.name
output uri string = vault.properties.vaultUri
