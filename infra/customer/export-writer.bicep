// Deployed by a customer, in their own subscription, to receive scheduled exports in one of their
// containers: it lets the Investment Data Service's managed identity write that container and nothing
// else (Storage Blob Data Contributor, scoped to the container). The service uploads export files
// (`prefix` + file name, overwriting a file of the same name when a run is retried).
//
//   az deployment group create -g <customer resource group> -f infra/customer/export-writer.bicep \
//     -p storageAccountName=<account> containerName=<container> principalId=<managedIdentityPrincipalId>

@description('Name of the customer\'s storage account that holds the container.')
param storageAccountName string

@description('Name of the container the service writes exports to.')
param containerName string

@description('Object (principal) id of the service\'s managed identity: the managedIdentityPrincipalId output of the service\'s deployment.')
param principalId string

var storageBlobDataContributor = 'ba92f5b4-2d11-453d-a403-e96b0029c9fe' // Storage Blob Data Contributor

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

resource contributorAssignment 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(container.id, principalId, storageBlobDataContributor)
  scope: container
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', storageBlobDataContributor)
    principalId: principalId
    principalType: 'ServicePrincipal'
  }
}

@description('The role assignment that lets the service write export files to the container.')
output roleAssignmentId string = contributorAssignment.id
