// Key Vault of the key that wraps every tenant's data key (field encryption of personal and document numbers,
// docs/security.md), and in certificate mode of the service application's Graph certificate. Access by Azure
// RBAC only, never by access policies. Soft delete is always on (90 days) and purge protection on by default
// (keyVaultPurgeProtection): losing the key loses every number. With purge protection a new `azd up` of the
// same environment after `azd down` needs another name (keyVaultNameSuffix).
param location string
param tags object
param name string
@description('Purge protection: a deleted vault, and its name, are kept for the retention period and cannot be purged. Irreversible once on.')
param purgeProtection bool
@description('Private networking: public network access off (the private endpoint is in network.bicep).')
param vnetEnabled bool
@description('Name of the RSA key that wraps the tenants\' data keys (FIELD_ENCRYPTION_KEY_NAME).')
param fieldEncryptionKeyName string

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

// RSA 3072 on the standard tier (RSA-HSM needs the premium tier), wrap and unwrap only, never exportable. The
// template makes its first version (the management API creates a key only if it does not exist); later versions
// come from `npm run ops -- rotate-keys` or a rotation policy, and old versions stay to unwrap older data keys.
resource fieldEncryptionKey 'Microsoft.KeyVault/vaults/keys@2023-07-01' = {
  parent: vault
  name: fieldEncryptionKeyName
  properties: {
    kty: 'RSA'
    keySize: 3072
    keyOps: [
      'wrapKey'
      'unwrapKey'
    ]
    attributes: {
      enabled: true
      exportable: false
    }
  }
}

output name string = vault.name
output id string = vault.id
output uri string = vault.properties.vaultUri
