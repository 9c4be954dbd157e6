// The replica's private network (Enterprise plan): the function app reaches Azure SQL over virtual
// network integration and a private endpoint, so the server needs no rule for "Azure services" (which
// would admit every Azure customer's address). The app's subnet is private (no default outbound
// access): its traffic to the internet (customers' webhooks and SFTP servers, Azure's public
// endpoints) leaves through a NAT gateway with one static public address, which customers may
// allow-list.

@description('Name prefix of the network resources (vnet-, nat-, pip-).')
param baseName string

@description('Azure region of the network.')
param location string

@description('Tags applied to every resource.')
param tags { *: string } = {}

@description('Address space of the virtual network.')
param addressPrefix string = '10.40.0.0/16'

var appSubnetPrefix = cidrSubnet(addressPrefix, 24, 0)
var privateEndpointSubnetPrefix = cidrSubnet(addressPrefix, 24, 1)

resource publicIp 'Microsoft.Network/publicIPAddresses@2024-05-01' = {
  name: 'pip-${baseName}'
  location: location
  tags: tags
  sku: {
    name: 'Standard'
  }
  properties: {
    publicIPAllocationMethod: 'Static'
    publicIPAddressVersion: 'IPv4'
  }
}

resource natGateway 'Microsoft.Network/natGateways@2024-05-01' = {
  name: 'nat-${baseName}'
  location: location
  tags: tags
  sku: {
    name: 'Standard'
  }
  properties: {
    idleTimeoutInMinutes: 4
    publicIpAddresses: [
      {
        id: publicIp.id
      }
    ]
  }
}

resource vnet 'Microsoft.Network/virtualNetworks@2024-05-01' = {
  name: 'vnet-${baseName}'
  location: location
  tags: tags
  properties: {
    addressSpace: {
      addressPrefixes: [
        addressPrefix
      ]
    }
    subnets: [
      {
        // Flex Consumption's virtual network integration: a subnet delegated to Microsoft.App/environments.
        name: 'app'
        properties: {
          addressPrefix: appSubnetPrefix
          defaultOutboundAccess: false
          natGateway: {
            id: natGateway.id
          }
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
      {
        name: 'private-endpoints'
        properties: {
          addressPrefix: privateEndpointSubnetPrefix
          defaultOutboundAccess: false
          privateEndpointNetworkPolicies: 'Disabled'
        }
      }
    ]
  }
}

@description('Resource id of the subnet the function app integrates with.')
output appSubnetId string = resourceId('Microsoft.Network/virtualNetworks/subnets', vnet.name, 'app')

@description('Resource id of the subnet that holds private endpoints.')
output privateEndpointSubnetId string = resourceId('Microsoft.Network/virtualNetworks/subnets', vnet.name, 'private-endpoints')

@description('Resource id of the virtual network (private DNS zones link to it).')
output vnetId string = vnet.id

@description('The static public address the app\'s outbound traffic leaves from.')
output outboundIpAddress string = publicIp.properties.ipAddress
