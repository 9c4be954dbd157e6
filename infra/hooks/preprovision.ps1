#!/usr/bin/env pwsh
# azd preprovision hook for Windows operators: the PowerShell twin of preprovision.sh, which says what
# it does. In short: the secrets main.bicep stores in Key Vault become azd environment values, kept when
# the environment has them, read back from the environment's key vault when it exists, generated only
# when there is no vault; a vault that exists but cannot be read stops the hook (never new secrets
# over existing ones).
$HookName = 'preprovision'
. (Join-Path $PSScriptRoot 'hook-common.ps1')

function Get-Setting([string] $Name) { [Environment]::GetEnvironmentVariable($Name) }
function Test-Setting([string] $Name) { [Environment]::GetEnvironmentVariables().Contains($Name) }

function Set-AzdValue([string] $Name, [string] $Value) {
    azd env set $Name $Value | Out-Null
    if ($LASTEXITCODE -ne 0) { Fail "preprovision: azd env set $Name failed" }
    [Environment]::SetEnvironmentVariable($Name, $Value)
}

function New-RandomBase64([int] $Bytes) { [Convert]::ToBase64String([Security.Cryptography.RandomNumberGenerator]::GetBytes($Bytes)) }
function New-RandomHex([int] $Bytes) { [Convert]::ToHexString([Security.Cryptography.RandomNumberGenerator]::GetBytes($Bytes)).ToLowerInvariant() }
function New-SqlPassword {
    # Azure SQL's password policy: upper and lower case, a digit and a symbol, 192 random bits after them.
    'Rp1-' + (New-RandomBase64 24).Replace('+', '-').Replace('/', '_').TrimEnd('=')
}

$envName = Get-Setting 'AZURE_ENV_NAME'
if (-not $envName -or $envName -cnotmatch '^[a-z0-9]{1,10}$') {
    Fail "preprovision: the azd environment name must be 1-10 lowercase letters and digits (it is part of every resource name); got '$envName'"
}

$errors = New-TemporaryFile
try {
    # The environment's key vault, if it exists.
    $vault = Get-Setting 'keyVaultName'
    $group = Get-Setting 'AZURE_RESOURCE_GROUP'
    if (-not $vault -and $group) {
        $exists = az group exists --name $group --output tsv 2> $errors
        if ($LASTEXITCODE -ne 0) { Fail "preprovision: cannot tell whether resource group $group exists: $(Get-Content -Raw $errors)" }
        if ($exists -eq 'true') {
            $vault = az keyvault list --resource-group $group `
                --query "[?tags.application=='investment-data-service' && tags.environment=='$envName'].name | [0]" `
                --output tsv 2> $errors
            if ($LASTEXITCODE -ne 0) {
                Fail "preprovision: cannot list the key vaults of $group (a vault of this environment may hold its secrets): $(Get-Content -Raw $errors)"
            }
        }
    }
    if ($vault) { Write-Output "preprovision: the environment's secrets are in key vault $vault" }

    function Stop-CannotRead([string] $Secret) {
        Fail @(
            "preprovision: key vault $vault exists, but its secret $Secret cannot be read:",
            "  $(Get-Content -Raw $errors)",
            'The deploying identity needs Key Vault Secrets Officer on the vault (the provision that created it',
            'granted it to its own deployer). Someone who may assign roles runs:',
            "  az role assignment create --role ""Key Vault Secrets Officer"" --assignee <your object id> --scope (az keyvault show --name $vault --query id --output tsv)",
            'then, once Azure has applied it (usually within 5 minutes): azd provision',
            'New secrets are NOT generated: they would make every stored webhook and export secret unreadable and',
            'every issued token invalid.'
        )
    }

    # The secret's field (`value`, `tags.kid`, ...), or $null when the vault has no such secret; stops on
    # any other failure (no access, no network).
    function Read-VaultSecret([string] $Secret, [string] $Query) {
        $out = az keyvault secret show --vault-name $vault --name $Secret --query $Query --output tsv 2> $errors
        if ($LASTEXITCODE -eq 0) { return [string]($out -join "`n") }
        if ((Get-Content -Raw $errors) -match 'SecretNotFound|was not found') { return $null }
        Stop-CannotRead $Secret
    }

    function Confirm-Secret([string] $Name, [string] $Secret, [scriptblock] $Generate) {
        $value = Get-Setting $Name
        $stored = if ($vault) { Read-VaultSecret $Secret 'value' } else { $null }
        if ($value) {
            if ($null -ne $stored -and $stored -cne $value) {
                if ($Name -eq 'WEBHOOK_SECRET_KEY') {
                    Fail "preprovision: WEBHOOK_SECRET_KEY of this environment differs from key vault $vault's, and it must never change (it seals every stored webhook and export secret). Run 'azd env set WEBHOOK_SECRET_KEY """"' to take the vault's, then azd provision."
                }
                Write-Output "preprovision: $Name differs from key vault $vault's: this provision replaces it (a rotation)"
            }
        }
        elseif ($null -ne $stored) {
            $value = $stored
            Write-Output "preprovision: $Name read from key vault $vault"
        }
        else {
            $value = & $Generate
            Write-Output "preprovision: $Name generated"
        }
        Set-AzdValue $Name $value
    }

    Confirm-Secret 'JWT_SIGNING_KEY' 'jwt-signing-key' { New-RandomBase64 32 }
    Confirm-Secret 'WEBHOOK_SECRET_KEY' 'webhook-secret-key' { New-RandomBase64 32 }
    Confirm-Secret 'BOOTSTRAP_CLIENT_SECRET' 'bootstrap-client-secret' { New-RandomHex 24 }

    # The key rotation's state, as the vault's signing-key secret records it in its tags.
    $kid = ''
    $previousKid = ''
    if ($vault) {
        $kid = [string](Read-VaultSecret 'jwt-signing-key' 'tags.kid')
        $previousKid = [string](Read-VaultSecret 'jwt-signing-key' 'tags.previousKid')
    }
    if (-not (Get-Setting 'JWT_KEY_ID')) {
        Set-AzdValue 'JWT_KEY_ID' $(if ($kid) { $kid } else { 'k1' })
        if ($kid) { Write-Output "preprovision: JWT_KEY_ID ($kid) read from key vault $vault" }
    }
    if (-not (Test-Setting 'JWT_PREVIOUS_KEY_ID') -and -not (Test-Setting 'JWT_PREVIOUS_SIGNING_KEY') -and $previousKid) {
        $previous = Read-VaultSecret 'jwt-previous-signing-key' 'value'
        if ($null -eq $previous) { Stop-CannotRead 'jwt-previous-signing-key' }
        Set-AzdValue 'JWT_PREVIOUS_KEY_ID' $previousKid
        Set-AzdValue 'JWT_PREVIOUS_SIGNING_KEY' $previous
        Write-Output "preprovision: the retired signing key ($previousKid) read from key vault ${vault}: still accepted"
    }
    elseif ([bool](Get-Setting 'JWT_PREVIOUS_KEY_ID') -ne [bool](Get-Setting 'JWT_PREVIOUS_SIGNING_KEY')) {
        Fail 'preprovision: JWT_PREVIOUS_SIGNING_KEY and JWT_PREVIOUS_KEY_ID are set together or not at all'
    }

    if ((Get-Setting 'ORGANISATION_PLAN') -eq 'enterprise') {
        Confirm-Secret 'SQL_ADMINISTRATOR_PASSWORD' 'sql-administrator-password' { New-SqlPassword }
        if (-not (Get-Setting 'SQL_ENTRA_ADMIN_OBJECT_ID')) {
            if ((az account show --query user.type --output tsv) -eq 'user') {
                $login = az ad signed-in-user show --query userPrincipalName --output tsv
                $objectId = az ad signed-in-user show --query id --output tsv
                $principalType = 'User'
            }
            else {
                $login = az account show --query user.name --output tsv
                $objectId = az ad sp show --id $login --query id --output tsv
                $principalType = 'Application'
            }
            Set-AzdValue 'SQL_ENTRA_ADMIN_LOGIN' $login
            Set-AzdValue 'SQL_ENTRA_ADMIN_OBJECT_ID' $objectId
            Set-AzdValue 'SQL_ENTRA_ADMIN_TYPE' $principalType
            Write-Output "preprovision: the replica's Entra administrator is the deploying identity ($login)"
        }
    }
}
finally {
    Remove-Item -Force $errors
}
