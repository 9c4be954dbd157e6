// Every permission the function app's identity holds, in one place: data-plane roles only (no Owner,
// no Contributor, no key listing), each the one Microsoft documents for what the app does with it, on
// the narrowest scope that does it. infra/README.md ("What the identity may do") gives the reasons.

@description('Principal (object) id of the function app\'s user-assigned identity.')
param principalId string

@description('Resource id of that identity: a name known before the deployment starts, so role assignments get stable names (what-if can predict them).')
param identityId string

@description('Name of the storage account (file drop and host storage).')
param storageAccountName string

@description('Name of the Cosmos DB account.')
param cosmosAccountName string

@description('Name of the Service Bus namespace.')
param serviceBusNamespaceName string

@description('The Service Bus queues a function is triggered by (all of servicebus.bicep\'s).')
param triggeredQueueNames string[]

@description('Name of the key vault.')
param keyVaultName string

@description('Name of the Application Insights component.')
param appInsightsName string

// Built-in Azure role definition ids (the same in every tenant).
var storageBlobDataOwner = 'b7e6dc6d-f1e8-4753-8033-0f276bb0955b' // Storage Blob Data Owner
var storageQueueDataContributor = '974c5e8b-45b9-4653-ba55-5f855dd0fb88' // Storage Queue Data Contributor
var serviceBusDataOwner = '090c5cfd-751d-490a-894a-3ce6f1109419' // Azure Service Bus Data Owner
var serviceBusDataSender = '69a216fc-b8fb-44d8-bc22-1f3c2cd27a39' // Azure Service Bus Data Sender
var keyVaultSecretsUser = '4633458b-17de-408a-b874-0445c86b69e6' // Key Vault Secrets User
var monitoringMetricsPublisher = '3913510d-42f4-4e42-8a64-420c390055eb' // Monitoring Metrics Publisher
// Not granted, on purpose: Storage Table Data Contributor (0a9a7e1f-b9d0-4cc4-a60d-0319b160aaa3),
// which only Durable Functions and a few extensions need, and Storage Account Contributor
// (17d1049b-9a84-46fb-8f53-869881c3d3ab), which Microsoft lists for the polling blob trigger but which
// can also list the account's keys: this app's blob trigger is Event Grid's.

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

// The account is the Functions host's storage (AzureWebJobsStorage) as well as the file drop. For a
// host whose blob trigger runs, Microsoft documents Storage Blob Data Owner and Storage Queue Data
// Contributor (the host's keys and locks in blobs, the trigger's work items in a queue), as the Flex
// Consumption samples grant; the app itself reads, writes and deletes the file drop's blobs.
var storageRoles = [
  storageBlobDataOwner
  storageQueueDataContributor
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

resource triggeredQueues 'Microsoft.ServiceBus/namespaces/queues@2024-01-01' existing = [
  for queueName in triggeredQueueNames: {
    parent: serviceBus
    name: queueName
  }
]

resource vault 'Microsoft.KeyVault/vaults@2023-07-01' existing = {
  name: keyVaultName
}

resource appInsights 'Microsoft.Insights/components@2020-02-02' existing = {
  name: appInsightsName
}

resource storageAssignments 'Microsoft.Authorization/roleAssignments@2022-04-01' = [
  for roleId in storageRoles: {
    name: guid(storage.id, identityId, roleId)
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
  name: guid(storage.id, identityId, 'sftp-local-users')
  scope: storage
  properties: {
    roleDefinitionId: sftpLocalUsersRole.id
    principalId: principalId
    principalType: 'ServicePrincipal'
  }
}

// A Service Bus trigger receives, and its scale controller reads the queue's message counts, which
// takes the Manage right: Microsoft lists Azure Service Bus Data Owner for triggers. It is granted on
// each triggered queue, not on the namespace (so no right over other entities or the namespace).
resource triggeredQueueOwners 'Microsoft.Authorization/roleAssignments@2022-04-01' = [
  for (queueName, i) in triggeredQueueNames: {
    name: guid(triggeredQueues[i].id, identityId, serviceBusDataOwner)
    scope: triggeredQueues[i]
    properties: {
      roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', serviceBusDataOwner)
      principalId: principalId
      principalType: 'ServicePrincipal'
    }
  }
]

// The service's own sends (outbox relay and publishers) to any of the namespace's queues.
resource serviceBusSender 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(serviceBus.id, identityId, serviceBusDataSender)
  scope: serviceBus
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', serviceBusDataSender)
    principalId: principalId
    principalType: 'ServicePrincipal'
  }
}

resource keyVaultSecretsUserAssignment 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(vault.id, identityId, keyVaultSecretsUser)
  scope: vault
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', keyVaultSecretsUser)
    principalId: principalId
    principalType: 'ServicePrincipal'
  }
}

// Lets the Functions host and the worker's SDK send telemetry with Microsoft Entra authentication
// (local authentication is off on the component).
resource monitoringMetricsPublisherAssignment 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(appInsights.id, identityId, monitoringMetricsPublisher)
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
  name: guid(cosmosAccount.id, identityId, cosmosDataContributor)
  properties: {
    roleDefinitionId: '${cosmosAccount.id}/sqlRoleDefinitions/${cosmosDataContributor}'
    principalId: principalId
    scope: cosmosAccount.id
  }
}
