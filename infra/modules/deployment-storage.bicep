// The Flex Consumption deployment package, in a storage account of its own. The platform reads (and
// `azd deploy`'s publish writes) the package with the deployment identity, the only principal given a
// role here, on the one container. The app's own identity (AZURE_CLIENT_ID, which all of the service's
// code uses) has no role on this account, so the service's credentials cannot replace the code it runs.

@description('Name of the storage account (3-24 lowercase letters and digits, globally unique).')
@minLength(3)
@maxLength(24)
param name string

@description('Azure region of the storage account.')
param location string

@description('Tags applied to the storage account.')
param tags { *: string } = {}

@description('Blob container that holds the deployment package.')
param containerName string

@description('Principal (object) id of the deployment identity.')
param deploymentPrincipalId string

@description('Resource id of the deployment identity (a name known before the deployment starts, for the role assignment\'s name).')
param deploymentIdentityId string

var storageBlobDataContributor = 'ba92f5b4-2d11-453d-a403-e96b0029c9fe' // Storage Blob Data Contributor

resource storage 'Microsoft.Storage/storageAccounts@2023-05-01' = {
  name: name
  location: location
  tags: tags
  kind: 'StorageV2'
  sku: {
    name: 'Standard_LRS'
  }
  properties: {
    accessTier: 'Hot'
    allowSharedKeyAccess: false
    defaultToOAuthAuthentication: true
    allowBlobPublicAccess: false
    allowCrossTenantReplication: false
    isLocalUserEnabled: false
    minimumTlsVersion: 'TLS1_2'
    supportsHttpsTrafficOnly: true
    publicNetworkAccess: 'Enabled'
    networkAcls: {
      defaultAction: 'Allow'
      bypass: 'AzureServices'
    }
  }
}

resource blobService 'Microsoft.Storage/storageAccounts/blobServices@2023-05-01' = {
  parent: storage
  name: 'default'
}

resource container 'Microsoft.Storage/storageAccounts/blobServices/containers@2023-05-01' = {
  parent: blobService
  name: containerName
  properties: {
    publicAccess: 'None'
  }
}

// Write, not only read: Flex Consumption's publish endpoint (what azd deploy calls) stores the
// package in the container with this identity, and the instances read it with the same one.
resource deploymentWriter 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(container.id, deploymentIdentityId, storageBlobDataContributor)
  scope: container
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', storageBlobDataContributor)
    principalId: deploymentPrincipalId
    principalType: 'ServicePrincipal'
  }
}

@description('Name of the storage account.')
output name string = storage.name

@description('URL of the deployment container (the app\'s functionAppConfig.deployment.storage.value).')
output containerUrl string = '${storage.properties.primaryEndpoints.blob}${containerName}'
