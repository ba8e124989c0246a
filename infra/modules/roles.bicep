// Data-plane roles of the app's user-assigned identity (and, optionally, of the operator who runs azd),
// least privilege: granted before the Function App exists (resources.bicep makes the app depend on this
// module), so the first deployment and the first start find them. Nothing uses a key or a connection
// string with a key.
param appPrincipalId string
@description('Object id of the operator identity (AZURE_PRINCIPAL_ID); empty = no operator role.')
param operatorPrincipalId string
@description('Whether the operator gets a standing Cosmos DB data role (a trial); production grants it just in time.')
param operatorCosmosDataRole bool
@description('Graph credential mode; the vault and its roles exist in certificate mode only.')
param graphCredential string
param storageAccountName string
param cosmosAccountName string
param cosmosDatabaseName string
param keyVaultName string
@description('The key that wraps the tenants\' data keys (keyvault.bicep).')
param fieldEncryptionKeyName string
param applicationInsightsName string

// Built-in Azure role definition ids.
var roleIds = {
  storageBlobDataOwner: 'b7e6dc6d-f1e8-4753-8033-0f276bb0955b'
  storageQueueDataContributor: '974c5e8b-45b9-4653-ba55-5f855dd0fb88'
  storageTableDataContributor: '0a9a7e1f-b9d0-4cc4-a60d-0319b160aaa3'
  storageQueueDataReader: '19e7f393-937e-4f77-808e-94535e297925'
  storageQueueDataMessageProcessor: '8a0f0c08-91a1-4084-bc3d-661d67233fed'
  monitoringMetricsPublisher: '3913510d-42f4-4e42-8a64-420c390055eb'
  keyVaultSecretsUser: '4633458b-17de-408a-b874-0445c86b69e6'
  keyVaultCertificatesOfficer: 'a4417e6f-fecd-4de8-b567-7b0420556985'
  keyVaultCryptoServiceEncryptionUser: 'e147488a-f6f5-4113-8e2d-b22465e65bf6'
  keyVaultCryptoOfficer: '14b46e9e-c2b7-41b4-b07b-48a6ebf60603'
}
// Cosmos DB Built-in Data Contributor (data plane: read and write items; no database or container management).
var cosmosDataContributor = '00000000-0000-0000-0000-000000000002'
var certificateMode = graphCredential == 'certificate'

resource storage 'Microsoft.Storage/storageAccounts@2023-05-01' existing = {
  name: storageAccountName
}

resource queueService 'Microsoft.Storage/storageAccounts/queueServices@2023-05-01' existing = {
  parent: storage
  name: 'default'
}

// storage.bicep's queues.
var operatorQueues = [
  'background-work'
  'background-work-poison'
]

resource queues 'Microsoft.Storage/storageAccounts/queueServices/queues@2023-05-01' existing = [
  for q in operatorQueues: {
    parent: queueService
    name: q
  }
]

resource cosmos 'Microsoft.DocumentDB/databaseAccounts@2025-10-15' existing = {
  name: cosmosAccountName
}

resource vault 'Microsoft.KeyVault/vaults@2023-07-01' existing = {
  name: keyVaultName
}

resource appInsights 'Microsoft.Insights/components@2020-02-02' existing = {
  name: applicationInsightsName
}

// Blob Data Owner: deployment package container and host leases; Queue and Table Data Contributor:
// the host's queues and tables (timer trigger and diagnostics state) and the background-work queues
// (storage.bicep) that the planners send to and backgroundWork reads, through the identity-based
// BACKGROUND_QUEUE connection. The same roles the Flex Consumption azd samples give their app identity.
resource storageRoles 'Microsoft.Authorization/roleAssignments@2022-04-01' = [
  for role in [
    roleIds.storageBlobDataOwner
    roleIds.storageQueueDataContributor
    roleIds.storageTableDataContributor
  ]: {
    name: guid(storage.id, appPrincipalId, role)
    scope: storage
    properties: {
      principalId: appPrincipalId
      principalType: 'ServicePrincipal'
      roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', role)
    }
  }
]

// The operator may look at and clear the background-work queues (docs/operations.md, "Background-work
// queues"): Reader to list and peek (the portal and `az storage message peek --auth-mode login`; shared keys
// are off, so nothing else works), Message Processor to take and delete a message. Nothing to send.
resource operatorQueueReader 'Microsoft.Authorization/roleAssignments@2022-04-01' = [
  for (q, i) in operatorQueues: if (!empty(operatorPrincipalId)) {
    name: guid(queues[i].id, operatorPrincipalId, roleIds.storageQueueDataReader)
    scope: queues[i]
    properties: {
      principalId: operatorPrincipalId
      roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roleIds.storageQueueDataReader)
    }
  }
]

resource operatorQueueProcessor 'Microsoft.Authorization/roleAssignments@2022-04-01' = [
  for (q, i) in operatorQueues: if (!empty(operatorPrincipalId)) {
    name: guid(queues[i].id, operatorPrincipalId, roleIds.storageQueueDataMessageProcessor)
    scope: queues[i]
    properties: {
      principalId: operatorPrincipalId
      roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roleIds.storageQueueDataMessageProcessor)
    }
  }
]

// Certificate mode: Secrets User only, the role a Key Vault reference needs to read the certificate's PEM
// (GRAPH_CERTIFICATE); the app never manages certificates.
resource vaultSecretsRole 'Microsoft.Authorization/roleAssignments@2022-04-01' = if (certificateMode) {
  name: guid(vault.id, appPrincipalId, roleIds.keyVaultSecretsUser)
  scope: vault
  properties: {
    principalId: appPrincipalId
    principalType: 'ServicePrincipal'
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roleIds.keyVaultSecretsUser)
  }
}

// Certificate mode: the vault is RBAC-only, so the operator who runs azd needs a data role to create,
// download and rotate the Graph certificate (`az keyvault certificate create|download`, infra/entra-app.md).
resource operatorCertificateRole 'Microsoft.Authorization/roleAssignments@2022-04-01' = if (graphCredential == 'certificate' && !empty(operatorPrincipalId)) {
  name: guid(vault.id, operatorPrincipalId, roleIds.keyVaultCertificatesOfficer)
  scope: vault
  properties: {
    principalId: operatorPrincipalId
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roleIds.keyVaultCertificatesOfficer)
  }
}

resource fieldEncryptionKey 'Microsoft.KeyVault/vaults/keys@2023-07-01' existing = {
  parent: vault
  name: fieldEncryptionKeyName
}

// Field encryption: the app reads the key and wraps and unwraps data keys with it, nothing else (Key Vault Crypto
// Service Encryption User: keys read, wrapKey, unwrapKey), on this one key only.
resource fieldKeyAppRole 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(fieldEncryptionKey.id, appPrincipalId, roleIds.keyVaultCryptoServiceEncryptionUser)
  scope: fieldEncryptionKey
  properties: {
    principalId: appPrincipalId
    principalType: 'ServicePrincipal'
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roleIds.keyVaultCryptoServiceEncryptionUser)
  }
}

// The operator makes new key versions (`npm run ops -- rotate-keys`) and rewraps with them: Crypto Officer on
// this key only; production grants it just in time instead (operatorPrincipalId empty).
resource fieldKeyOperatorRole 'Microsoft.Authorization/roleAssignments@2022-04-01' = if (!empty(operatorPrincipalId)) {
  name: guid(fieldEncryptionKey.id, operatorPrincipalId, roleIds.keyVaultCryptoOfficer)
  scope: fieldEncryptionKey
  properties: {
    principalId: operatorPrincipalId
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roleIds.keyVaultCryptoOfficer)
  }
}

// Entra-authenticated telemetry (APPLICATIONINSIGHTS_AUTHENTICATION_STRING=ClientId=…;Authorization=AAD).
resource telemetryRole 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(appInsights.id, appPrincipalId, roleIds.monitoringMetricsPublisher)
  scope: appInsights
  properties: {
    principalId: appPrincipalId
    principalType: 'ServicePrincipal'
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roleIds.monitoringMetricsPublisher)
  }
}

// Scoped to the service's database, not the whole account.
var cosmosScope = '${cosmos.id}/dbs/${cosmosDatabaseName}'

resource cosmosAppRole 'Microsoft.DocumentDB/databaseAccounts/sqlRoleAssignments@2025-10-15' = {
  parent: cosmos
  name: guid(cosmos.id, appPrincipalId, cosmosDataContributor)
  properties: {
    principalId: appPrincipalId
    roleDefinitionId: '${cosmos.id}/sqlRoleDefinitions/${cosmosDataContributor}'
    scope: cosmosScope
  }
}

// The operator's own identity, for `npm run ops` with `az login`: a standing role for a first trial
// (operatorCosmosDataRole); production leaves it off and grants it just in time (docs/operations.md,
// "Operator access"). After the app's: Cosmos DB takes one SQL role assignment write at a time per account
// and refuses a second one in parallel.
resource cosmosOperatorRole 'Microsoft.DocumentDB/databaseAccounts/sqlRoleAssignments@2025-10-15' = if (operatorCosmosDataRole && !empty(operatorPrincipalId)) {
  parent: cosmos
  name: guid(cosmos.id, operatorPrincipalId, cosmosDataContributor)
  dependsOn: [
    cosmosAppRole
  ]
  properties: {
    principalId: operatorPrincipalId
    roleDefinitionId: '${cosmos.id}/sqlRoleDefinitions/${cosmosDataContributor}'
    scope: cosmosScope
  }
}
