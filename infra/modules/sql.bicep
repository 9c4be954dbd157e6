// The read-only SQL replica (Enterprise plan): an Azure SQL logical server and the `analytics`
// database BI tools connect to on port 1433. Microsoft Entra identities and SQL logins are both
// accepted (the spec promises both), the Entra administrator is the deploying person or group, and
// TLS 1.2 is the least accepted. The function app's identity becomes a database user in the azd
// postprovision hook (Bicep cannot run T-SQL); the app then creates the schema, the reader role and
// the BI logins itself. The app reaches the server through a private endpoint in the replica's
// virtual network (network.bicep); BI users reach its public endpoint from the address ranges named in
// clientIpRanges only. There is no rule for "Azure services" (0.0.0.0), which would admit any
// address of any Azure customer.

@description('Name of the logical server (becomes <name>.database.windows.net).')
@minLength(1)
@maxLength(63)
param serverName string

@description('Name of the database BI users connect to.')
param databaseName string = 'analytics'

@description('Azure region of the server and the database.')
param location string

@description('Tags applied to the server and the database.')
param tags { *: string } = {}

@description('Sign-in name of the Microsoft Entra administrator (a user principal name or a group name).')
param entraAdminLogin string

@description('Object id of the Microsoft Entra administrator.')
param entraAdminObjectId string

@description('Kind of principal the Entra administrator is.')
@allowed([
  'User'
  'Group'
  'Application'
])
param entraAdminPrincipalType string = 'User'

@description('SQL administrator login; SQL authentication stays on because BI users may sign in with SQL logins.')
param administratorLogin string

@secure()
@description('Password of the SQL administrator login (kept in Key Vault as sql-administrator-password).')
param administratorPassword string

@description('The address ranges BI users connect from, in CIDR notation, separated by commas (203.0.113.0/24,198.51.100.7/32); empty: none.')
param clientIpRanges string = ''

@description('Resource id of the subnet the private endpoint goes in.')
param privateEndpointSubnetId string

@description('Resource id of the virtual network the private DNS zone is linked to (the function app\'s).')
param vnetId string

@description('Optional DNS alias of the server (becomes <alias>.database.windows.net); BI users are given it instead of the server name.')
param dnsAlias string = ''

@description('SKU of the database (serverless General Purpose by default).')
param skuName string = 'GP_S_Gen5_1'

@description('Minutes of inactivity after which a serverless database pauses (-1: never).')
param autoPauseDelay int = 60

resource server 'Microsoft.Sql/servers@2021-11-01' = {
  name: serverName
  location: location
  tags: tags
  properties: {
    administratorLogin: administratorLogin
    administratorLoginPassword: administratorPassword
    administrators: {
      administratorType: 'ActiveDirectory'
      login: entraAdminLogin
      sid: entraAdminObjectId
      tenantId: subscription().tenantId
      principalType: entraAdminPrincipalType
      // SQL logins are part of the contract: Entra-only authentication stays off.
      azureADOnlyAuthentication: false
    }
    minimalTlsVersion: '1.2'
    // The public endpoint stays on for BI tools and the postprovision hook, each admitted by a rule
    // for its addresses; with no rule, it admits nobody.
    publicNetworkAccess: 'Enabled'
    version: '12.0'
  }
}

var clientRanges = filter(map(split(clientIpRanges, ','), range => trim(range)), range => !empty(range))

// One rule per range: its first and last address (a /32 is one address).
resource clientRules 'Microsoft.Sql/servers/firewallRules@2021-11-01' = [
  for (range, i) in clientRanges: {
    parent: server
    name: 'bi-${i}-${replace(replace(range, '/', '-'), '.', '-')}'
    properties: {
      startIpAddress: parseCidr(range).network
      endIpAddress: parseCidr(range).broadcast
    }
  }
]

// The app's way in: a private endpoint, and the privatelink zone that makes the server's public name
// resolve to it inside the virtual network.
resource privateDnsZone 'Microsoft.Network/privateDnsZones@2024-06-01' = {
  name: 'privatelink${environment().suffixes.sqlServerHostname}'
  location: 'global'
  tags: tags
}

resource privateDnsZoneLink 'Microsoft.Network/privateDnsZones/virtualNetworkLinks@2024-06-01' = {
  parent: privateDnsZone
  name: 'replica-vnet'
  location: 'global'
  tags: tags
  properties: {
    registrationEnabled: false
    virtualNetwork: {
      id: vnetId
    }
  }
}

resource privateEndpoint 'Microsoft.Network/privateEndpoints@2024-05-01' = {
  name: 'pe-${serverName}'
  location: location
  tags: tags
  properties: {
    subnet: {
      id: privateEndpointSubnetId
    }
    privateLinkServiceConnections: [
      {
        name: 'sql'
        properties: {
          privateLinkServiceId: server.id
          groupIds: [
            'sqlServer'
          ]
        }
      }
    ]
  }
}

resource privateDnsZoneGroup 'Microsoft.Network/privateEndpoints/privateDnsZoneGroups@2024-05-01' = {
  parent: privateEndpoint
  name: 'default'
  properties: {
    privateDnsZoneConfigs: [
      {
        name: 'sql'
        properties: {
          privateDnsZoneId: privateDnsZone.id
        }
      }
    ]
  }
}

resource database 'Microsoft.Sql/servers/databases@2021-11-01' = {
  parent: server
  name: databaseName
  location: location
  tags: tags
  sku: {
    name: skuName
  }
  properties: {
    collation: 'SQL_Latin1_General_CP1_CI_AS'
    autoPauseDelay: autoPauseDelay
  }
}

resource alias 'Microsoft.Sql/servers/dnsAliases@2021-11-01' = if (!empty(dnsAlias)) {
  parent: server
  name: empty(dnsAlias) ? 'unused' : dnsAlias
}

@description('Name of the logical server.')
output serverName string = server.name

@description('Fully qualified name of the server (where the service connects).')
output serverFqdn string = server.properties.fullyQualifiedDomainName

@description('The host BI users are given: the DNS alias when there is one, else the server\'s name.')
output publicHost string = empty(dnsAlias) ? server.properties.fullyQualifiedDomainName : '${dnsAlias}${environment().suffixes.sqlServerHostname}'

@description('Name of the replica database.')
output databaseName string = database.name
