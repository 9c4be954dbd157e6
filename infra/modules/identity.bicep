// A user-assigned managed identity. main.bicep makes two: the function app's, which it uses for
// everything it reaches (host storage, Cosmos DB, Service Bus, Key Vault, Application Insights, the
// replica), and the deployment identity, which only the platform uses to read and write the deployment
// package (the app's code never asks for it: AZURE_CLIENT_ID names the app's identity).

@description('Name of the user-assigned managed identity.')
param name string

@description('Azure region of the identity.')
param location string

@description('Tags applied to the identity.')
param tags { *: string } = {}

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
