// Key Vault (Azure RBAC, soft delete, purge protection) holding the service's secrets.
// The function app reads them through Key Vault references in its app settings; the deploying
// identity may read them back (Key Vault Secrets Officer), so that the next `azd provision` from
// another machine keeps them instead of generating new ones (hooks/preprovision.sh).

@description('Name of the key vault (3-24 letters, digits and hyphens, globally unique).')
@minLength(3)
@maxLength(24)
param name string

@description('Azure region of the vault.')
param location string

@description('Tags applied to the vault.')
param tags { *: string } = {}

@secure()
@description('Value of the jwt-signing-key secret.')
param jwtSigningKey string

@description('Key id (kid) of jwtSigningKey: stored as the secret\'s tag `kid`, so that preprovision reads it back with the key.')
param jwtKeyId string

@secure()
@description('A retired signing key still accepted while tokens it signed live (a rotation), or empty. Stored as secret jwt-previous-signing-key.')
param jwtPreviousSigningKey string = ''

@description('Key id (kid) of jwtPreviousSigningKey, or empty.')
param jwtPreviousKeyId string = ''

@secure()
@description('Value of the bootstrap-client-secret secret.')
param bootstrapClientSecret string

@secure()
@description('Value of the webhook-secret-key secret (base64 of 32 bytes: the AES-256-GCM key sealing webhook secrets).')
param webhookSecretKey string

@secure()
@description('Value of the sql-administrator-password secret (the replica\'s SQL administrator; empty when there is no replica, and then no secret).')
param sqlAdministratorPassword string = ''

@description('Object id of the identity that deploys (azd: AZURE_PRINCIPAL_ID), given Key Vault Secrets Officer on the vault; empty: none.')
param deployerPrincipalId string = ''

@description('Kind of principal the deployer is.')
@allowed([
  'User'
  'Group'
  'ServicePrincipal'
])
param deployerPrincipalType string = 'User'

var keyVaultSecretsOfficer = 'b86a8fe4-44ce-4948-aee5-eccb2c155cd7' // Key Vault Secrets Officer

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

// The tags record the rotation state (which kid signs, which retired kid is still accepted), so that
// preprovision restores all of it on a machine whose azd environment has none of it.
resource jwtSigningKeySecret 'Microsoft.KeyVault/vaults/secrets@2023-07-01' = {
  parent: vault
  name: 'jwt-signing-key'
  tags: {
    kid: jwtKeyId
    previousKid: jwtPreviousKeyId
  }
  properties: {
    value: jwtSigningKey
    contentType: 'base64'
  }
}

// Made (and read) when a retired key id is given; main.bicep requires the key with it.
resource jwtPreviousSigningKeySecret 'Microsoft.KeyVault/vaults/secrets@2023-07-01' = if (!empty(jwtPreviousKeyId)) {
  parent: vault
  name: 'jwt-previous-signing-key'
  tags: {
    kid: jwtPreviousKeyId
  }
  properties: {
    value: jwtPreviousSigningKey
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

// Without it, the next operator's preprovision cannot read the secrets back and stops (it never
// generates new ones over existing ones).
resource deployerSecretsOfficer 'Microsoft.Authorization/roleAssignments@2022-04-01' = if (!empty(deployerPrincipalId)) {
  name: guid(vault.id, deployerPrincipalId, keyVaultSecretsOfficer)
  scope: vault
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', keyVaultSecretsOfficer)
    principalId: deployerPrincipalId
    principalType: deployerPrincipalType
  }
}

@description('Name of the vault.')
output name string = vault.name

@description('Vault URI, e.g. https://<vault>.vault.azure.net/.')
output uri string = vault.properties.vaultUri

// Versionless URIs: a Key Vault reference then follows the latest version after a rotation.
@description('Versionless URI of the jwt-signing-key secret.')
output jwtSigningKeySecretUri string = jwtSigningKeySecret.properties.secretUri

@description('Versionless URI of the jwt-previous-signing-key secret (empty when there is no retired key).')
output jwtPreviousSigningKeySecretUri string = empty(jwtPreviousKeyId) ? '' : jwtPreviousSigningKeySecret!.properties.secretUri

@description('Versionless URI of the bootstrap-client-secret secret.')
output bootstrapClientSecretUri string = bootstrapClientSecretSecret.properties.secretUri

@description('Versionless URI of the webhook-secret-key secret.')
output webhookSecretKeySecretUri string = webhookSecretKeySecret.properties.secretUri
