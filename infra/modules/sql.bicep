// The read-only SQL replica (Enterprise plan): an Azure SQL logical server and the `analytics`
// database BI tools connect to on port 1433. Microsoft Entra identities and SQL logins are both
// accepted (the spec promises both), the Entra administrator is the deploying person or group, and
// TLS 1.2 is the least accepted. The function app's identity becomes a database user in the azd
// postprovision hook (Bicep cannot run T-SQL); the app then creates the schema, the reader role and
// the BI logins itself.

@description('Name of the logical server (becomes <name>.database.windows.net).')
@minLength(1)
@maxLength(63)
param serverName string

@description('Name of the database BI users connect to.')
param databaseName string = 'analytics'

@description('Azure region of the server and the database.')
param location string

@description('Tags applied to the server and the database.')
param tags object = {}

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

@description('Firewall rules for the addresses BI users connect from: [{ name, startIpAddress, endIpAddress }].')
param firewallRules array = []

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
    publicNetworkAccess: 'Enabled'
    version: '12.0'
  }
}

// The function app (Flex Consumption, no virtual network) reaches the server as an Azure service.
resource allowAzureServices 'Microsoft.Sql/servers/firewallRules@2021-11-01' = {
  parent: server
  name: 'AllowAllWindowsAzureIps'
  properties: {
    startIpAddress: '0.0.0.0'
    endIpAddress: '0.0.0.0'
  }
}

resource clientRules 'Microsoft.Sql/servers/firewallRules@2021-11-01' = [
  for rule in firewallRules: {
    parent: server
    name: rule.name
    properties: {
      startIpAddress: rule.startIpAddress
      endIpAddress: rule.endIpAddress
    }
  }
]

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
