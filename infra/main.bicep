// Investment Data Service: the Azure deployment.
// One resource group holds everything; one user-assigned identity reaches every service with
// Microsoft Entra ID (shared keys and local auth are off, and nothing here lists a key).
//
//   az deployment group create -g <rg> -f infra/main.bicep -p infra/main.parameters.json \
//     -p jwtSigningKey=<base64 key> bootstrapClientSecret=<secret> webhookSecretKey=<base64 of 32 bytes>

targetScope = 'resourceGroup'

@description('Azure region for every resource. Defaults to the resource group\'s region; it must offer Flex Consumption.')
param location string = resourceGroup().location

@description('Short lowercase name of the deployment environment (for example prod, test), used in resource names and tags.')
@minLength(1)
@maxLength(10)
param environmentName string = 'prod'

@description('Short lowercase prefix for resource names (letters and digits).')
@minLength(2)
@maxLength(11)
param namePrefix string = 'invdata'

@description('Extra tags for every resource.')
param tags { *: string } = {}

@description('Name of the Cosmos DB SQL database (app setting COSMOS_DATABASE).')
param cosmosDatabaseName string = 'investment-data'

@secure()
@minLength(44)
@description('Key that signs the API\'s access tokens: base64 of at least 32 random bytes (openssl rand -base64 32). Stored as Key Vault secret jwt-signing-key.')
param jwtSigningKey string

@secure()
@minLength(44)
@maxLength(44)
@description('Key that encrypts webhook signing secrets at rest (AES-256-GCM): base64 of exactly 32 random bytes (openssl rand -base64 32). Stored as Key Vault secret webhook-secret-key.')
param webhookSecretKey string

@description('Key id (kid) written into issued tokens (app setting JWT_KEY_ID).')
param jwtKeyId string = 'k1'

@secure()
@description('During a key rotation: the retired signing key, still accepted until the tokens it signed expire (app setting JWT_PREVIOUS_SIGNING_KEY, Key Vault secret jwt-previous-signing-key). Empty: none.')
param jwtPreviousSigningKey string = ''

@description('During a key rotation: the kid of the retired key (app setting JWT_PREVIOUS_KEY_ID). Set with jwtPreviousSigningKey, or neither.')
param jwtPreviousKeyId string = ''

@description('Object id of the identity that deploys (azd sets AZURE_PRINCIPAL_ID): it is given Key Vault Secrets Officer on the vault, so that a later provision reads the secrets back. Empty: no grant.')
param deployerPrincipalId string = ''

@description('Kind of principal the deployer is (azd sets AZURE_PRINCIPAL_TYPE).')
@allowed([
  'User'
  'Group'
  'ServicePrincipal'
])
param deployerPrincipalType string = 'User'

@description('Audience (aud) of issued tokens (app setting JWT_AUDIENCE).')
param jwtAudience string = 'investment-data-api'

@description('Client id of the bootstrap admin API client created at start-up (app setting BOOTSTRAP_CLIENT_ID).')
@minLength(3)
@maxLength(100)
param bootstrapClientId string = 'bootstrap-admin'

@secure()
@minLength(16)
@description('Secret of the bootstrap admin API client, at least 16 characters. Stored as Key Vault secret bootstrap-client-secret.')
param bootstrapClientSecret string

@description('Requests per minute for standard-tier API clients.')
param rateLimitStandardPerMinute int = 60

@description('Requests per day for standard-tier API clients.')
param rateLimitStandardPerDay int = 10000

@description('Requests per minute for premium-tier API clients.')
param rateLimitPremiumPerMinute int = 300

@description('Requests per day for premium-tier API clients.')
param rateLimitPremiumPerDay int = 100000

@description('Replication of the storage account.')
@allowed([
  'Standard_LRS'
  'Standard_ZRS'
  'Standard_GRS'
  'Standard_RAGRS'
  'Standard_GZRS'
  'Standard_RAGZRS'
])
param storageSkuName string = 'Standard_LRS'

@description('SFTP local user for the file drop (lowercase letters and digits). Leave empty to add users later.')
param sftpUserName string = ''

@description('OpenSSH public key of the SFTP local user ("ssh-ed25519 AAAA..." or "ssh-rsa AAAA...").')
param sftpUserPublicKey string = ''

@description('Deliveries of a Service Bus message before it is dead-lettered.')
@minValue(1)
@maxValue(100)
param serviceBusMaxDeliveryCount int = 10

@description('NCRONTAB schedule of the outbox relay (seconds first), which re-publishes events that never reached the events queue.')
param outboxRelaySchedule string = '*/30 * * * * *'

@description('Most instances the function app may scale out to (Flex Consumption: 40-1000).')
@minValue(40)
@maxValue(1000)
param maximumInstanceCount int = 100

@description('Memory of each function app instance in MB.')
@allowed([
  512
  2048
  4096
])
param instanceMemoryMB int = 2048

@description('Days Log Analytics keeps logs.')
@minValue(30)
@maxValue(730)
param logRetentionInDays int = 30

@description('Make Application Insights accept only Microsoft Entra authenticated telemetry (the host and the worker both authenticate with the app\'s identity).')
param appInsightsDisableLocalAuth bool = true

@description('The organisation\'s plan (app setting ORGANISATION_PLAN). On the Enterprise plan a read-only SQL replica (Azure SQL Database) is deployed for BI tools; on the others there is none and its routes answer 403.')
@allowed([
  'standard'
  'premium'
  'enterprise'
])
param plan string = 'standard'

@description('Enterprise plan: sign-in name (user principal name or group name) of the SQL server\'s Microsoft Entra administrator; azd\'s preprovision hook sets the deploying identity.')
param sqlEntraAdminLogin string = ''

@description('Enterprise plan: object id of that Entra administrator.')
param sqlEntraAdminObjectId string = ''

@description('Enterprise plan: whether the Entra administrator is a user, a group or an application.')
@allowed([
  'User'
  'Group'
  'Application'
])
param sqlEntraAdminPrincipalType string = 'User'

@description('Enterprise plan: the SQL administrator login of the replica\'s server (SQL authentication stays on for BI users\' SQL logins).')
param sqlAdministratorLogin string = 'replicaadmin'

@secure()
@description('Enterprise plan: password of the SQL administrator login; azd\'s preprovision hook generates it. Stored as Key Vault secret sql-administrator-password.')
param sqlAdministratorPassword string = ''

@description('Enterprise plan: the address ranges BI tools connect to the replica from, in CIDR notation, separated by commas (203.0.113.0/24,198.51.100.7/32). Empty: none (the app itself uses a private endpoint).')
param sqlClientIpRanges string = ''

@description('Enterprise plan: address space of the virtual network the app reaches the replica through (a /16 or larger; two /24 subnets are made in it).')
param vnetAddressPrefix string = '10.40.0.0/16'

@description('Enterprise plan: optional DNS alias of the replica\'s server; BI users are given <alias>.database.windows.net.')
param replicaDnsAlias string = ''

@description('Enterprise plan: SKU of the replica database (serverless General Purpose by default).')
param replicaSkuName string = 'GP_S_Gen5_1'

// Globally unique names: the same inputs give the same names, so a redeployment updates in place.
var token = toLower(uniqueString(subscription().id, resourceGroup().id, environmentName))
var baseName = toLower('${namePrefix}-${environmentName}')
var compactPrefix = toLower(replace(namePrefix, '-', ''))
var allTags = union(
  {
    application: 'investment-data-service'
    environment: environmentName
  },
  tags
)

var names = {
  identity: 'id-${baseName}-${token}'
  deploymentIdentity: 'id-${baseName}-deploy-${token}'
  deploymentStorage: take('stpkg${compactPrefix}${token}', 24)
  logAnalytics: 'log-${baseName}-${token}'
  appInsights: 'appi-${baseName}-${token}'
  storage: take('st${compactPrefix}${token}', 24)
  cosmos: 'cosmos-${baseName}-${token}'
  serviceBus: 'sb-${baseName}-${token}'
  keyVault: take('kv${compactPrefix}${token}', 24)
  plan: 'plan-${baseName}-${token}'
  functionApp: 'func-${baseName}-${token}'
  sqlServer: 'sql-${baseName}-${token}'
}
var replicaEnabled = plan == 'enterprise'

var deploymentContainerName = 'app-package'

// One queue per asynchronous flow, each with a trigger (shared/ports/message-bus.ts names the same).
var serviceBusQueueNames = [
  'events'
  'valuations'
  'deliveries'
  'exports'
  'blob-sources'
  'feed-files'
]

module identity 'modules/identity.bicep' = {
  name: 'identity'
  params: {
    name: names.identity
    location: location
    tags: allTags
  }
}

module deploymentIdentity 'modules/identity.bicep' = {
  name: 'deployment-identity'
  params: {
    name: names.deploymentIdentity
    location: location
    tags: allTags
  }
}

module deploymentStorage 'modules/deployment-storage.bicep' = {
  name: 'deployment-storage'
  params: {
    name: names.deploymentStorage
    location: location
    tags: allTags
    containerName: deploymentContainerName
    deploymentPrincipalId: deploymentIdentity.outputs.principalId
    deploymentIdentityId: resourceId('Microsoft.ManagedIdentity/userAssignedIdentities', names.deploymentIdentity)
  }
}

module monitoring 'modules/monitoring.bicep' = {
  name: 'monitoring'
  params: {
    workspaceName: names.logAnalytics
    appInsightsName: names.appInsights
    location: location
    tags: allTags
    retentionInDays: logRetentionInDays
    disableLocalAuth: appInsightsDisableLocalAuth
  }
}

module storage 'modules/storage.bicep' = {
  name: 'storage'
  params: {
    name: names.storage
    location: location
    tags: allTags
    skuName: storageSkuName
    sftpUserName: sftpUserName
    sftpUserPublicKey: sftpUserPublicKey
  }
}

module cosmos 'modules/cosmos.bicep' = {
  name: 'cosmos'
  params: {
    accountName: names.cosmos
    databaseName: cosmosDatabaseName
    location: location
    tags: allTags
  }
}

module serviceBus 'modules/servicebus.bicep' = {
  name: 'servicebus'
  params: {
    name: names.serviceBus
    location: location
    tags: allTags
    maxDeliveryCount: serviceBusMaxDeliveryCount
    queueNames: serviceBusQueueNames
  }
}

module keyVault 'modules/keyvault.bicep' = {
  name: 'keyvault'
  params: {
    name: names.keyVault
    location: location
    tags: allTags
    jwtSigningKey: jwtSigningKey
    jwtKeyId: jwtKeyId
    jwtPreviousSigningKey: jwtPreviousSigningKey
    jwtPreviousKeyId: jwtPreviousKeyId
    bootstrapClientSecret: bootstrapClientSecret
    webhookSecretKey: webhookSecretKey
    sqlAdministratorPassword: replicaEnabled ? sqlAdministratorPassword : ''
    deployerPrincipalId: deployerPrincipalId
    deployerPrincipalType: deployerPrincipalType
  }
}

// The read-only SQL replica and the private network the app reaches it through, on the Enterprise plan only.
module network 'modules/network.bicep' = if (replicaEnabled) {
  name: 'network'
  params: {
    baseName: '${baseName}-${token}'
    location: location
    tags: allTags
    addressPrefix: vnetAddressPrefix
  }
}

module sql 'modules/sql.bicep' = if (replicaEnabled) {
  name: 'sql'
  params: {
    serverName: names.sqlServer
    databaseName: 'analytics'
    location: location
    tags: allTags
    entraAdminLogin: sqlEntraAdminLogin
    entraAdminObjectId: sqlEntraAdminObjectId
    entraAdminPrincipalType: sqlEntraAdminPrincipalType
    administratorLogin: sqlAdministratorLogin
    administratorPassword: sqlAdministratorPassword
    clientIpRanges: sqlClientIpRanges
    privateEndpointSubnetId: network!.outputs.privateEndpointSubnetId
    vnetId: network!.outputs.vnetId
    dnsAlias: replicaDnsAlias
    skuName: replicaSkuName
  }
}

module roles 'modules/roles.bicep' = {
  name: 'roles'
  params: {
    principalId: identity.outputs.principalId
    identityId: resourceId('Microsoft.ManagedIdentity/userAssignedIdentities', names.identity)
    // Names known before the deployment starts (not the modules' outputs), so that what-if can tell
    // what the role assignments will be; dependsOn makes the resources exist first.
    storageAccountName: names.storage
    cosmosAccountName: names.cosmos
    serviceBusNamespaceName: names.serviceBus
    triggeredQueueNames: serviceBusQueueNames
    keyVaultName: names.keyVault
    appInsightsName: names.appInsights
  }
  dependsOn: [
    storage
    cosmos
    serviceBus
    keyVault
    monitoring
  ]
}

module functionApp 'modules/functionapp.bicep' = {
  name: 'functionapp'
  params: {
    name: names.functionApp
    planName: names.plan
    location: location
    tags: allTags
    // azd deploys the service `api` of azure.yaml to the one resource carrying this tag.
    appTags: {
      'azd-service-name': 'api'
    }
    identityId: identity.outputs.id
    identityClientId: identity.outputs.clientId
    deploymentIdentityId: deploymentIdentity.outputs.id
    deploymentContainerUrl: deploymentStorage.outputs.containerUrl
    virtualNetworkSubnetId: replicaEnabled ? network!.outputs.appSubnetId : ''
    storageAccountName: storage.outputs.name
    storageBlobEndpoint: storage.outputs.blobEndpoint
    storageQueueEndpoint: storage.outputs.queueEndpoint
    storageAccountId: storage.outputs.id
    sftpHost: storage.outputs.sftpHost
    cosmosEndpoint: cosmos.outputs.endpoint
    cosmosDatabaseName: cosmos.outputs.databaseName
    serviceBusHostName: serviceBus.outputs.hostName
    appInsightsConnectionString: monitoring.outputs.connectionString
    jwtSigningKeySecretUri: keyVault.outputs.jwtSigningKeySecretUri
    jwtPreviousSigningKeySecretUri: keyVault.outputs.jwtPreviousSigningKeySecretUri
    jwtPreviousKeyId: jwtPreviousKeyId
    bootstrapClientSecretUri: keyVault.outputs.bootstrapClientSecretUri
    webhookSecretKeySecretUri: keyVault.outputs.webhookSecretKeySecretUri
    jwtKeyId: jwtKeyId
    jwtAudience: jwtAudience
    bootstrapClientId: bootstrapClientId
    rateLimitStandardPerMinute: rateLimitStandardPerMinute
    rateLimitStandardPerDay: rateLimitStandardPerDay
    rateLimitPremiumPerMinute: rateLimitPremiumPerMinute
    rateLimitPremiumPerDay: rateLimitPremiumPerDay
    outboxRelaySchedule: outboxRelaySchedule
    organisationPlan: plan
    replicaServerFqdn: replicaEnabled ? sql!.outputs.serverFqdn : ''
    replicaPublicHost: replicaEnabled ? sql!.outputs.publicHost : ''
    replicaDatabaseName: 'analytics'
    maximumInstanceCount: maximumInstanceCount
    instanceMemoryMB: instanceMemoryMB
  }
  // The host must be able to read the deployment container and the Key Vault secrets as soon as
  // the app exists, so the role assignments come first (Azure may still take minutes to apply them:
  // infra/README.md, "When the first provision meets role replication").
  dependsOn: [
    roles
  ]
}

@description('Name of the function app (for func azure functionapp publish).')
output functionAppName string = functionApp.outputs.name

@description('Default host name of the function app.')
output functionAppHostName string = functionApp.outputs.defaultHostName

@description('Base URL of the API ({base_url}).')
output apiBaseUrl string = functionApp.outputs.baseUrl

@description('Cosmos DB document endpoint.')
output cosmosEndpoint string = cosmos.outputs.endpoint

@description('Name of the storage account.')
output storageAccountName string = storage.outputs.name

@description('Host name for SFTP clients (port 22); the login is <storage account>.<local user>.')
output sftpHost string = storage.outputs.sftpHost

@description('SFTP login of the local user created by this deployment, if any.')
output sftpLogin string = storage.outputs.sftpLogin

@description('Fully qualified Service Bus namespace.')
output serviceBusNamespace string = serviceBus.outputs.hostName

@description('Name of the key vault holding the service\'s secrets.')
output keyVaultName string = keyVault.outputs.name

@description('Event Grid system topic for blob events (for the blob trigger subscription).')
output blobEventsTopicName string = storage.outputs.blobEventsTopicName

@description('Client id of the function app\'s user-assigned identity.')
output identityClientId string = identity.outputs.clientId

@description('Whether the read-only SQL replica is deployed (the Enterprise plan); the postprovision hook reads it.')
output replicaEnabled bool = replicaEnabled

@description('Name of the replica\'s logical server (empty off the Enterprise plan).')
output sqlServerName string = replicaEnabled ? sql!.outputs.serverName : ''

@description('Fully qualified name of the replica\'s server (empty off the Enterprise plan).')
output sqlServerFqdn string = replicaEnabled ? sql!.outputs.serverFqdn : ''

@description('The host BI users are given for the replica (the server\'s name or its DNS alias), port 1433.')
output replicaHost string = replicaEnabled ? sql!.outputs.publicHost : ''

@description('Name of the replica database.')
output replicaDatabaseName string = 'analytics'

@description('The static public address the app\'s outbound traffic leaves from on the Enterprise plan (customers may allow-list it); empty on the others, where it leaves from Flex Consumption\'s shared addresses.')
output outboundIpAddress string = replicaEnabled ? network!.outputs.outboundIpAddress : ''

@description('Key id (kid) of the signing key (preprovision and the runbook read it).')
output jwtKeyId string = jwtKeyId

@description('Name of the function app\'s user-assigned identity (its database user in the replica).')
output managedIdentityName string = identity.outputs.name

@description('Object (principal) id of the function app\'s identity: customers grant it Storage Blob Data Reader on a blob source\'s container (infra/customer/blob-source-reader.bicep).')
output managedIdentityPrincipalId string = identity.outputs.principalId
