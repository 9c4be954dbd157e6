// One StorageV2 account with a hierarchical namespace and SFTP: the customer file drop (inbound,
// archive, quarantine) and the Functions host storage (AzureWebJobsStorage: host keys, timers'
// schedules, the blob trigger's queue). The deployment package lives in an account of its own
// (deployment-storage.bicep), which the app's identity cannot write. Shared keys are off: everything
// uses Microsoft Entra ID, except SFTP, which authenticates its own local users.

@description('Name of the storage account (3-24 lowercase letters and digits, globally unique).')
@minLength(3)
@maxLength(24)
param name string

@description('Azure region of the storage account.')
param location string

@description('Tags applied to the storage account.')
param tags { *: string } = {}

@description('Replication of the storage account. SFTP supports LRS, ZRS, GRS, RA-GRS, GZRS and RA-GZRS.')
@allowed([
  'Standard_LRS'
  'Standard_ZRS'
  'Standard_GRS'
  'Standard_RAGRS'
  'Standard_GZRS'
  'Standard_RAGZRS'
])
param skuName string = 'Standard_LRS'

@description('SFTP local user for the file drop (lowercase letters and digits). Empty: no user is created; add one later with az storage account local-user create.')
param sftpUserName string = ''

@description('OpenSSH public key of the SFTP local user, for example "ssh-ed25519 AAAA...". Required when sftpUserName is set.')
param sftpUserPublicKey string = ''

// inbound: SFTP drop and uploads; archive: files imported; quarantine: files rejected. (Scheduled
// exports go to the customer's own SFTP server or container, never to this account.)
var dataContainerNames = [
  'inbound'
  'archive'
  'quarantine'
]

resource storage 'Microsoft.Storage/storageAccounts@2023-05-01' = {
  name: name
  location: location
  tags: tags
  kind: 'StorageV2'
  sku: {
    name: skuName
  }
  properties: {
    accessTier: 'Hot'
    isHnsEnabled: true
    isSftpEnabled: true
    isLocalUserEnabled: true
    allowSharedKeyAccess: false
    defaultToOAuthAuthentication: true
    allowBlobPublicAccess: false
    allowCrossTenantReplication: false
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

resource dataContainers 'Microsoft.Storage/storageAccounts/blobServices/containers@2023-05-01' = [
  for containerName in dataContainerNames: {
    parent: blobService
    name: containerName
    properties: {
      publicAccess: 'None'
    }
  }
]

// The SFTP user lands in the inbound container and may only read, create, write and list there.
resource sftpUser 'Microsoft.Storage/storageAccounts/localUsers@2023-05-01' = if (!empty(sftpUserName) && !empty(sftpUserPublicKey)) {
  parent: storage
  name: empty(sftpUserName) ? 'unused' : sftpUserName
  properties: {
    homeDirectory: 'inbound'
    permissionScopes: [
      {
        service: 'blob'
        resourceName: 'inbound'
        permissions: 'rcwl'
      }
    ]
    hasSshKey: true
    hasSshPassword: false
    hasSharedKey: false
    sshAuthorizedKeys: [
      {
        description: 'file drop'
        key: sftpUserPublicKey
      }
    ]
  }
  dependsOn: [
    dataContainers
  ]
}

// Flex Consumption runs blob triggers only from Event Grid: this system topic publishes the
// account's blob events; the subscription to the function's blob webhook is added after the
// code is published (infra/README.md), because it needs the host's blobs_extension key.
resource blobEventsTopic 'Microsoft.EventGrid/systemTopics@2022-06-15' = {
  name: '${name}-events'
  location: location
  tags: tags
  properties: {
    source: storage.id
    topicType: 'Microsoft.Storage.StorageAccounts'
  }
}

@description('Name of the storage account.')
output name string = storage.name

@description('Resource id of the storage account.')
output id string = storage.id

@description('Blob service endpoint, e.g. https://<account>.blob.core.windows.net/.')
output blobEndpoint string = storage.properties.primaryEndpoints.blob

@description('Queue service endpoint, e.g. https://<account>.queue.core.windows.net/.')
output queueEndpoint string = storage.properties.primaryEndpoints.queue

@description('Host name SFTP clients connect to (port 22).')
output sftpHost string = '${storage.name}.blob.${environment().suffixes.storage}'

@description('SFTP login of the local user created here (<account>.<user>), or empty when none was created.')
output sftpLogin string = empty(sftpUserName) || empty(sftpUserPublicKey) ? '' : '${storage.name}.${sftpUserName}'

@description('Name of the Event Grid system topic for the account\'s blob events.')
output blobEventsTopicName string = blobEventsTopic.name
