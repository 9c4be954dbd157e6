// The function app on Flex Consumption (FC1, Linux, Node 22), running as the user-assigned identity.
// No connection strings or keys: the host, the SDKs (DefaultAzureCredential via AZURE_CLIENT_ID), the
// telemetry and the Key Vault references all authenticate as that identity. The deployment package is
// read with a second identity, which the app's code never uses.

@description('Name of the function app (becomes <name>.azurewebsites.net).')
@minLength(2)
@maxLength(60)
param name string

@description('Name of the Flex Consumption plan.')
param planName string

@description('Azure region of the plan and the app (must offer Flex Consumption).')
param location string

@description('Tags applied to the plan and the app.')
param tags { *: string } = {}

@description('Tags applied to the app alone (azd finds the app it deploys to by its azd-service-name tag).')
param appTags { *: string } = {}

@description('Resource id of the user-assigned identity.')
param identityId string

@description('Client id of the user-assigned identity.')
param identityClientId string

@description('Resource id of the deployment identity, which reads the deployment package.')
param deploymentIdentityId string

@description('URL of the blob container that holds the deployment package.')
param deploymentContainerUrl string

@description('Resource id of the subnet for virtual network integration (the replica\'s private endpoint); empty: none.')
param virtualNetworkSubnetId string = ''

@description('Name of the storage account used by the Functions host.')
param storageAccountName string

@description('Blob endpoint of the storage account (with trailing slash).')
param storageBlobEndpoint string

@description('Queue endpoint of the storage account (with trailing slash).')
param storageQueueEndpoint string

@description('Resource id of the storage account whose SFTP local users are the feeds\' logins.')
param storageAccountId string

@description('Host name providers connect to over SFTP (<account>.blob.core.windows.net).')
param sftpHost string

@description('Cosmos DB document endpoint.')
param cosmosEndpoint string

@description('Cosmos DB SQL database name.')
param cosmosDatabaseName string

@description('Fully qualified host name of the Service Bus namespace.')
param serviceBusHostName string

@description('Application Insights connection string.')
param appInsightsConnectionString string

@description('Versionless URI of the jwt-signing-key secret.')
param jwtSigningKeySecretUri string

@description('Versionless URI of the jwt-previous-signing-key secret; empty when no retired key is accepted.')
param jwtPreviousSigningKeySecretUri string = ''

@description('Key id (kid) of the retired signing key; empty when there is none.')
param jwtPreviousKeyId string = ''

@description('Versionless URI of the bootstrap-client-secret secret.')
param bootstrapClientSecretUri string

@description('Versionless URI of the webhook-secret-key secret.')
param webhookSecretKeySecretUri string

@description('Key id (kid) written into issued tokens.')
param jwtKeyId string

@description('Audience (aud) of issued tokens.')
param jwtAudience string

@description('Client id of the bootstrap admin API client.')
param bootstrapClientId string

@description('Requests per minute for standard-tier API clients.')
param rateLimitStandardPerMinute int

@description('Requests per day for standard-tier API clients.')
param rateLimitStandardPerDay int

@description('Requests per minute for premium-tier API clients.')
param rateLimitPremiumPerMinute int

@description('Requests per day for premium-tier API clients.')
param rateLimitPremiumPerDay int

@description('NCRONTAB schedule of the outbox relay, which re-publishes events that never reached the events queue.')
param outboxRelaySchedule string = '*/30 * * * * *'

@description('The organisation\'s plan (ORGANISATION_PLAN): the replica\'s change-feed functions register on the Enterprise plan only.')
param organisationPlan string

@description('Fully qualified name of the replica\'s SQL server (empty when there is none).')
param replicaServerFqdn string = ''

@description('The host BI users are given for the replica (empty when there is none).')
param replicaPublicHost string = ''

@description('Name of the replica database.')
param replicaDatabaseName string = 'analytics'

@description('Most instances the app may scale out to.')
@minValue(40)
@maxValue(1000)
param maximumInstanceCount int

@description('Memory of each instance in MB.')
@allowed([
  512
  2048
  4096
])
param instanceMemoryMB int

resource plan 'Microsoft.Web/serverfarms@2024-04-01' = {
  name: planName
  location: location
  tags: tags
  kind: 'functionapp'
  sku: {
    name: 'FC1'
    tier: 'FlexConsumption'
  }
  properties: {
    reserved: true
  }
}

resource functionApp 'Microsoft.Web/sites@2024-04-01' = {
  name: name
  location: location
  tags: union(tags, appTags)
  kind: 'functionapp,linux'
  identity: {
    type: 'UserAssigned'
    userAssignedIdentities: {
      '${identityId}': {}
      '${deploymentIdentityId}': {}
    }
  }
  properties: {
    serverFarmId: plan.id
    httpsOnly: true
    // Key Vault references resolve with this identity (there is no system-assigned one).
    keyVaultReferenceIdentity: identityId
    virtualNetworkSubnetId: empty(virtualNetworkSubnetId) ? null : virtualNetworkSubnetId
    siteConfig: {
      minTlsVersion: '1.2'
    }
    functionAppConfig: {
      deployment: {
        storage: {
          type: 'blobContainer'
          value: deploymentContainerUrl
          authentication: {
            type: 'UserAssignedIdentity'
            userAssignedIdentityResourceId: deploymentIdentityId
          }
        }
      }
      scaleAndConcurrency: {
        maximumInstanceCount: maximumInstanceCount
        instanceMemoryMB: instanceMemoryMB
      }
      runtime: {
        name: 'node'
        version: '22'
      }
    }
  }
}

// Only while a signing key is being retired (infra/README.md, "Rotating the keys").
var previousKeySettings = empty(jwtPreviousSigningKeySecretUri)
  ? {}
  : {
      JWT_PREVIOUS_SIGNING_KEY: '@Microsoft.KeyVault(SecretUri=${jwtPreviousSigningKeySecretUri})'
      JWT_PREVIOUS_KEY_ID: jwtPreviousKeyId
    }

// Every app setting but JWT_ISSUER (the app's own host name, known once the app exists). This is the
// complete list: settings set by hand in the portal are replaced on the next deployment.
// COSMOS_KEY is deliberately absent: without it the service uses the managed identity.
var settings = {
  // Functions host storage, identity-based.
  AzureWebJobsStorage__accountName: storageAccountName
  AzureWebJobsStorage__credential: 'managedidentity'
  AzureWebJobsStorage__clientId: identityClientId
  // Connection "SERVICEBUS" of the Service Bus queue triggers (connection: "SERVICEBUS"), identity-based.
  SERVICEBUS__fullyQualifiedNamespace: serviceBusHostName
  SERVICEBUS__credential: 'managedidentity'
  SERVICEBUS__clientId: identityClientId
  APPLICATIONINSIGHTS_CONNECTION_STRING: appInsightsConnectionString
  APPLICATIONINSIGHTS_AUTHENTICATION_STRING: 'ClientId=${identityClientId};Authorization=AAD'
  // DefaultAzureCredential in the service's own code picks the user-assigned identity by this.
  AZURE_CLIENT_ID: identityClientId
  COSMOS_ENDPOINT: cosmosEndpoint
  COSMOS_DATABASE: cosmosDatabaseName
  STORAGE_BLOB_ENDPOINT: storageBlobEndpoint
  STORAGE_QUEUE_ENDPOINT: storageQueueEndpoint
  MESSAGE_BUS: 'service-bus'
  SERVICEBUS_NAMESPACE: serviceBusHostName
  OUTBOX_RELAY_SCHEDULE: outboxRelaySchedule
  JWT_SIGNING_KEY: '@Microsoft.KeyVault(SecretUri=${jwtSigningKeySecretUri})'
  JWT_KEY_ID: jwtKeyId
  JWT_AUDIENCE: jwtAudience
  BOOTSTRAP_CLIENT_ID: bootstrapClientId
  BOOTSTRAP_CLIENT_SECRET: '@Microsoft.KeyVault(SecretUri=${bootstrapClientSecretUri})'
  RATE_LIMIT_STANDARD_PER_MINUTE: string(rateLimitStandardPerMinute)
  RATE_LIMIT_STANDARD_PER_DAY: string(rateLimitStandardPerDay)
  RATE_LIMIT_PREMIUM_PER_MINUTE: string(rateLimitPremiumPerMinute)
  RATE_LIMIT_PREMIUM_PER_DAY: string(rateLimitPremiumPerDay)
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'false'
  FX_PIVOT_CURRENCIES: 'USD,EUR'
  WEBHOOK_DISABLE_AFTER_DAYS: '5'
  // Each feed's SFTP login is a local user of the storage account (home inbound/<feedId>), port 22.
  SFTP_LOGINS: 'azure'
  STORAGE_ACCOUNT_RESOURCE_ID: storageAccountId
  SFTP_HOST: sftpHost
  SFTP_PORT: '22'
  WEBHOOK_SECRET_KEY: '@Microsoft.KeyVault(SecretUri=${webhookSecretKeySecretUri})'
  ORGANISATION_PLAN: organisationPlan
  // Connection "COSMOS" of the replica's change-feed triggers (connection: "COSMOS"), identity-based;
  // their checkpoints go to the `leases` container.
  COSMOS__accountEndpoint: cosmosEndpoint
  COSMOS__credential: 'managedidentity'
  COSMOS__clientId: identityClientId
  // The replica: Azure SQL Database over TDS, signed in as this identity (an empty host: no replica).
  REPLICA_ENGINE: 'sqlserver'
  REPLICA_HOST: replicaServerFqdn
  REPLICA_PUBLIC_HOST: replicaPublicHost
  REPLICA_PORT: '1433'
  REPLICA_DATABASE: replicaDatabaseName
  // The host's "your app is running" page at / is not the API's: / answers 404.
  AzureWebJobsDisableHomepage: 'true'
}

resource appSettings 'Microsoft.Web/sites/config@2024-04-01' = {
  parent: functionApp
  name: 'appsettings'
  properties: union(settings, previousKeySettings, {
    JWT_ISSUER: 'https://${functionApp.properties.defaultHostName}'
  })
}

@description('Name of the function app.')
output name string = functionApp.name

@description('Default host name of the function app.')
output defaultHostName string = functionApp.properties.defaultHostName

@description('Base URL of the API.')
output baseUrl string = 'https://${functionApp.properties.defaultHostName}'
