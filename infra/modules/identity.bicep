// The user-assigned managed identity the service uses for Microsoft Graph only: it is the federated
// identity credential of the multi-tenant Entra application (Microsoft's workload identity federation
// accepts user-assigned identities, not system-assigned ones). It is its own resource, so deleting and
// re-creating the Function App keeps it, and with it the federated credential's subject.
param location string
param tags object
param name string

resource graphIdentity 'Microsoft.ManagedIdentity/userAssignedIdentities@2023-01-31' = {
  name: name
  location: location
  tags: tags
}

output id string = graphIdentity.id
output clientId string = graphIdentity.properties.clientId
output principalId string = graphIdentity.properties.principalId
