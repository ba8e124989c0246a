// A user-assigned managed identity. The template makes two, each its own resource so that deleting and
// re-creating the Function App keeps them (and their role assignments and federated credentials):
// - the app identity (id-api-…): host storage, deployment package, queues, telemetry, Cosmos DB and Key Vault
//   references. Its roles are granted before the site exists (roles.bicep), so the first `azd deploy` seconds
//   after provisioning does not meet a 403 while role assignments of a new system-assigned identity propagate;
// - the Graph identity (id-graph-…): Microsoft Graph only, as the federated identity credential of the
//   multi-tenant Entra application (workload identity federation accepts user-assigned identities, not
//   system-assigned ones).
param location string
param tags object
param name string

resource identity 'Microsoft.ManagedIdentity/userAssignedIdentities@2023-01-31' = {
  name: name
  location: location
  tags: tags
}

output id string = identity.id
output clientId string = identity.properties.clientId
output principalId string = identity.properties.principalId
