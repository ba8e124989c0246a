// Private networking (vnetEnabled, the production setting): a virtual network with
// - subnet `app`, delegated to Microsoft.App/environments, for the Flex Consumption app's virtual network
//   integration (the site's virtualNetworkSubnetId): its outbound calls to Cosmos DB, storage and Key Vault
//   go through the network;
// - subnet `private-endpoints`: one private endpoint each for Cosmos DB (Sql), storage blob, queue and table,
//   and, in certificate mode, Key Vault, each registered in its private DNS zone linked to the network, so
//   the usual host names resolve to private addresses inside it.
// Those services then turn public network access off (cosmos.bicep, storage.bicep, keyvault.bicep).
// Shape after Microsoft's Flex Consumption azd samples (vnetEnabled: app/vnet.bicep,
// app/storage-PrivateEndpoint.bicep), written out without registry modules.
param location string
param tags object
param vnetName string
param privateEndpointPrefix string
param storageAccountId string
param cosmosAccountId string
param keyVaultId string
var appSubnetName = 'app'
var privateEndpointSubnetName = 'private-endpoints'

// The vault of the field encryption key (and the Graph certificate) in every mode.
var vaultEndpoints = [{ name: 'vault', target: keyVaultId, groupId: 'vault', zone: 'privatelink.vaultcore.azure.net' }]

// name, target resource, sub-resource (group id) and the private DNS zone of that sub-resource.
var endpoints = concat(
  [
    {
      name: 'cosmos'
      target: cosmosAccountId
      groupId: 'Sql'
      zone: 'privatelink.documents.azure.com'
    }
  ],
  map(
    [
      'blob'
      'queue'
      'table'
    ],
    service => {
      name: service
      target: storageAccountId
      groupId: service
      zone: 'privatelink.${service}.${environment().suffixes.storage}'
    }
  ),
  vaultEndpoints
)

resource vnet 'Microsoft.Network/virtualNetworks@2024-05-01' = {
  name: vnetName
  location: location
  tags: tags
  properties: {
    addressSpace: {
      addressPrefixes: [
        '10.0.0.0/16'
      ]
    }
    subnets: [
      {
        name: privateEndpointSubnetName
        properties: {
          addressPrefix: '10.0.1.0/24'
          privateEndpointNetworkPolicies: 'Disabled'
        }
      }
      {
        name: appSubnetName
        properties: {
          addressPrefix: '10.0.2.0/24'
          // Flex Consumption integrates through a subnet delegated to Microsoft.App/environments.
          delegations: [
            {
              name: 'flex-consumption'
              properties: {
                serviceName: 'Microsoft.App/environments'
              }
            }
          ]
        }
      }
    ]
  }
}

resource zones 'Microsoft.Network/privateDnsZones@2024-06-01' = [
  for e in endpoints: {
    name: e.zone
    location: 'global'
    tags: tags
  }
]

resource zoneLinks 'Microsoft.Network/privateDnsZones/virtualNetworkLinks@2024-06-01' = [
  for (e, i) in endpoints: {
    parent: zones[i]
    name: vnetName
    location: 'global'
    tags: tags
    properties: {
      virtualNetwork: {
        id: vnet.id
      }
      registrationEnabled: false
    }
  }
]

resource privateEndpoints 'Microsoft.Network/privateEndpoints@2024-05-01' = [
  for e in endpoints: {
    name: '${privateEndpointPrefix}${e.name}'
    location: location
    tags: tags
    properties: {
      subnet: {
        id: '${vnet.id}/subnets/${privateEndpointSubnetName}'
      }
      privateLinkServiceConnections: [
        {
          name: e.name
          properties: {
            privateLinkServiceId: e.target
            groupIds: [
              e.groupId
            ]
          }
        }
      ]
    }
  }
]

resource zoneGroups 'Microsoft.Network/privateEndpoints/privateDnsZoneGroups@2024-05-01' = [
  for (e, i) in endpoints: {
    parent: privateEndpoints[i]
    name: 'default'
    properties: {
      privateDnsZoneConfigs: [
        {
          name: e.name
          properties: {
            privateDnsZoneId: zones[i].id
          }
        }
      ]
    }
  }
]

output appSubnetId string = '${vnet.id}/subnets/${appSubnetName}'
