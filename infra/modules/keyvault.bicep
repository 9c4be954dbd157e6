// Key Vault (Azure RBAC, soft delete, purge protection) holding the service's secrets.
// The function app reads them through Key Vault references in its app settings.

@description('Name of the key vault (3-24 letters, digits and hyphens, globally unique).')
@minLength(3)
@maxLength(24)
param name string

@description('Azure region of the vault.')
param location string

@description('Tags applied to the vault.')
param tags object = {}

@secure()
@description('Value of the jwt-signing-key secret.')
param jwtSigningKey string

@secure()
@description('Value of the bootstrap-client-secret secret.')
param bootstrapClientSecret string

@secure()
@description('Value of the webhook-secret-key secret (base64 of 32 bytes: the AES-256-GCM key sealing webhook secrets).')
param webhookSecretKey string

@secure()
@description('Value of the sql-administrator-password secret (the replica\'s SQL administrator; empty when there is no replica, and then no secret).')
param sqlAdministratorPassword string = ''

resource vault 'Microsoft.KeyVault/vaults@2023-07-01' = {
  name: name
  location: location
  tags: tags
  properties: {
    tenantId: subscription().tenantId
    sku: {
      family: 'A'
      name: 'standard'
    }
    enableRbacAuthorization: true
    enableSoftDelete: true
    softDeleteRetentionInDays: 90
    enablePurgeProtection: true
    enabledForDeployment: false
    enabledForDiskEncryption: false
    enabledForTemplateDeployment: false
    publicNetworkAccess: 'Enabled'
    networkAcls: {
      defaultAction: 'Allow'
      bypass: 'AzureServices'
    }
  }
}

resource jwtSigningKeySecret 'Microsoft.KeyVault/vaults/secrets@2023-07-01' = {
  parent: vault
  name: 'jwt-signing-key'
  properties: {
    value: jwtSigningKey
    contentType: 'base64'
  }
}

resource bootstrapClientSecretSecret 'Microsoft.KeyVault/vaults/secrets@2023-07-01' = {
  parent: vault
  name: 'bootstrap-client-secret'
  properties: {
    value: bootstrapClientSecret
    contentType: 'text/plain'
  }
}

resource webhookSecretKeySecret 'Microsoft.KeyVault/vaults/secrets@2023-07-01' = {
  parent: vault
  name: 'webhook-secret-key'
  properties: {
    value: webhookSecretKey
    contentType: 'base64'
  }
}

// The replica server's SQL administrator password, for an administrator who needs it (break-glass).
resource sqlAdministratorPasswordSecret 'Microsoft.KeyVault/vaults/secrets@2023-07-01' = if (!empty(sqlAdministratorPassword)) {
  parent: vault
  name: 'sql-administrator-password'
  properties: {
    value: sqlAdministratorPassword
    contentType: 'text/plain'
  }
}

@description('Name of the vault.')
output name string = vault.name

@description('Vault URI, e.g. https://<vault>.vault.azure.net/.')
output uri string = vault.properties.vaultUri

// Versionless URIs: a Key Vault reference then follows the latest version after a rotation.
@description('Versionless URI of the jwt-signing-key secret.')
output jwtSigningKeySecretUri string = jwtSigningKeySecret.properties.secretUri

@description('Versionless URI of the bootstrap-client-secret secret.')
output bootstrapClientSecretUri string = bootstrapClientSecretSecret.properties.secretUri

@description('Versionless URI of the webhook-secret-key secret.')
output webhookSecretKeySecretUri string = webhookSecretKeySecret.properties.secretUri
