// Every permission the function app's identity holds, least privilege, in one place.
// Data-plane roles only: no Owner, no Contributor, no key listing.

@description('Principal (object) id of the function app\'s user-assigned identity.')
param principalId string

@description('Name of the storage account.')
param storageAccountName string

@description('Name of the Cosmos DB account.')
param cosmosAccountName string

@description('Name of the Service Bus namespace.')
param serviceBusNamespaceName string

@description('Name of the key vault.')
param keyVaultName string

@description('Name of the Application Insights component.')
param appInsightsName string

// Built-in Azure role definition ids (the same in every tenant).
var storageBlobDataContributor = 'ba92f5b4-2d11-453d-a403-e96b0029c9fe' // Storage Blob Data Contributor
var storageQueueDataContributor = '974c5e8b-45b9-4653-ba55-5f855dd0fb88' // Storage Queue Data Contributor
var serviceBusDataSender = '69a216fc-b8fb-44d8-bc22-1f3c2cd27a39' // Azure Service Bus Data Sender
var serviceBusDataReceiver = '4f6d3b9b-027b-4f4c-9142-0e5a2a2247e0' // Azure Service Bus Data Receiver
var keyVaultSecretsUser = '4633458b-17de-408a-b874-0445c86b69e6' // Key Vault Secrets User
var monitoringMetricsPublisher = '3913510d-42f4-4e42-8a64-420c390055eb' // Monitoring Metrics Publisher
// Storage Table Data Contributor (0a9a7e1f-b9d0-4cc4-a60d-0319b160aaa3) is deliberately not
// granted: only Durable Functions and a few extensions need tables, and this app uses neither.

// Feeds' SFTP logins are the storage account's local users, created, re-keyed and deleted by the
// app through Azure Resource Manager. No built-in role is that narrow (Storage Account Contributor
// could also list the account keys and change its network rules), so a custom role grants exactly
// the local-user actions, on this one account.
var sftpLocalUserActions = [
  'Microsoft.Storage/storageAccounts/localusers/read'
  'Microsoft.Storage/storageAccounts/localusers/write'
  'Microsoft.Storage/storageAccounts/localusers/delete'
  'Microsoft.Storage/storageAccounts/localusers/regeneratePassword/action'
]

// Cosmos DB built-in data-plane role (a Cosmos SQL role, not an Azure role).
var cosmosDataContributor = '00000000-0000-0000-0000-000000000002' // Cosmos DB Built-in Data Contributor

// Blob: the host (keys, leases, deployment package) and the app (file drop, archive, exports).
// Queue: the host's blob-trigger bookkeeping and poison-blob queue.
var storageRoles = [
  storageBlobDataContributor
  storageQueueDataContributor
]

// The app both publishes (outbox -> events, fan-out -> deliveries) and consumes both queues.
var serviceBusRoles = [
  serviceBusDataSender
  serviceBusDataReceiver
]

resource storage 'Microsoft.Storage/storageAccounts@2023-05-01' existing = {
  name: storageAccountName
}

resource cosmosAccount 'Microsoft.DocumentDB/databaseAccounts@2024-11-15' existing = {
  name: cosmosAccountName
}

resource serviceBus 'Microsoft.ServiceBus/namespaces@2024-01-01' existing = {
  name: serviceBusNamespaceName
}

resource vault 'Microsoft.KeyVault/vaults@2023-07-01' existing = {
  name: keyVaultName
}

resource appInsights 'Microsoft.Insights/components@2020-02-02' existing = {
  name: appInsightsName
}

resource storageAssignments 'Microsoft.Authorization/roleAssignments@2022-04-01' = [
  for roleId in storageRoles: {
    name: guid(storage.id, principalId, roleId)
    scope: storage
    properties: {
      roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roleId)
      principalId: principalId
      principalType: 'ServicePrincipal'
    }
  }
]

resource sftpLocalUsersRole 'Microsoft.Authorization/roleDefinitions@2022-04-01' = {
  name: guid(resourceGroup().id, storageAccountName, 'sftp-local-users')
  properties: {
    roleName: 'Investment Data SFTP local users (${storageAccountName})'
    description: 'Create, update, re-key and delete the SFTP local users of one storage account (the feeds\' logins); nothing else.'
    type: 'CustomRole'
    permissions: [
      {
        actions: sftpLocalUserActions
        notActions: []
      }
    ]
    // Assignable in this resource group; the one assignment below is on the storage account only.
    assignableScopes: [
      resourceGroup().id
    ]
  }
}

resource sftpLocalUsersAssignment 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(storage.id, principalId, 'sftp-local-users')
  scope: storage
  properties: {
    roleDefinitionId: sftpLocalUsersRole.id
    principalId: principalId
    principalType: 'ServicePrincipal'
  }
}

resource serviceBusAssignments 'Microsoft.Authorization/roleAssignments@2022-04-01' = [
  for roleId in serviceBusRoles: {
    name: guid(serviceBus.id, principalId, roleId)
    scope: serviceBus
    properties: {
      roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roleId)
      principalId: principalId
      principalType: 'ServicePrincipal'
    }
  }
]

resource keyVaultSecretsUserAssignment 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(vault.id, principalId, keyVaultSecretsUser)
  scope: vault
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', keyVaultSecretsUser)
    principalId: principalId
    principalType: 'ServicePrincipal'
  }
}

// Lets the Functions host send telemetry with Microsoft Entra authentication.
resource monitoringMetricsPublisherAssignment 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(appInsights.id, principalId, monitoringMetricsPublisher)
  scope: appInsights
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', monitoringMetricsPublisher)
    principalId: principalId
    principalType: 'ServicePrincipal'
  }
}

// Account scope: the account holds only this service's database, and the SDK's account-level
// metadata reads (regions, endpoints) are covered as well.
resource cosmosDataContributorAssignment 'Microsoft.DocumentDB/databaseAccounts/sqlRoleAssignments@2024-11-15' = {
  parent: cosmosAccount
  name: guid(cosmosAccount.id, principalId, cosmosDataContributor)
  properties: {
    roleDefinitionId: '${cosmosAccount.id}/sqlRoleDefinitions/${cosmosDataContributor}'
    principalId: principalId
    scope: cosmosAccount.id
  }
}
