// Deployed by a customer, in their own subscription, to connect one of their containers as a blob
// source: it lets the Investment Data Service's managed identity read that container and nothing
// else (Storage Blob Data Reader, scoped to the container). The service lists and copies blobs; it
// never writes or deletes them, and this role would not let it.
//
//   az deployment group create -g <customer resource group> -f infra/customer/blob-source-reader.bicep \
//     -p storageAccountName=<account> containerName=<container> principalId=<managedIdentityPrincipalId>

@description('Name of the customer\'s storage account that holds the container.')
param storageAccountName string

@description('Name of the container the service reads.')
param containerName string

@description('Object (principal) id of the service\'s managed identity: the managedIdentityPrincipalId output of the service\'s deployment.')
param principalId string

var storageBlobDataReader = '2a2b9908-6ea1-4ae2-8e65-a410df84e7d1' // Storage Blob Data Reader

resource account 'Microsoft.Storage/storageAccounts@2023-05-01' existing = {
  name: storageAccountName
}

resource blobService 'Microsoft.Storage/storageAccounts/blobServices@2023-05-01' existing = {
  parent: account
  name: 'default'
}

resource container 'Microsoft.Storage/storageAccounts/blobServices/containers@2023-05-01' existing = {
  parent: blobService
  name: containerName
}

resource readerAssignment 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(container.id, principalId, storageBlobDataReader)
  scope: container
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', storageBlobDataReader)
    principalId: principalId
    principalType: 'ServicePrincipal'
  }
}

@description('The role assignment that lets the service read the container.')
output roleAssignmentId string = readerAssignment.id
