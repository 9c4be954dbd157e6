// The one user-assigned managed identity the function app uses for everything:
// host storage, deployment package, Cosmos DB, Service Bus, Key Vault and Application Insights.

@description('Name of the user-assigned managed identity.')
param name string

@description('Azure region of the identity.')
param location string

@description('Tags applied to the identity.')
param tags object = {}

resource identity 'Microsoft.ManagedIdentity/userAssignedIdentities@2023-01-31' = {
  name: name
  location: location
  tags: tags
}

@description('Resource id of the identity (for identity blocks and keyVaultReferenceIdentity).')
output id string = identity.id

@description('Name of the identity.')
output name string = identity.name

@description('Client (application) id: what AZURE_CLIENT_ID and the __clientId settings carry.')
output clientId string = identity.properties.clientId

@description('Object (principal) id: what role assignments are granted to.')
output principalId string = identity.properties.principalId
