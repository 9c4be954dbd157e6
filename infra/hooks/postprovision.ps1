#!/usr/bin/env pwsh
# azd postprovision hook for Windows operators: the PowerShell twin of postprovision.sh, which says what
# it does. On the Enterprise plan the function app's managed identity becomes a user of the replica
# database, through a temporary firewall rule for this machine, removed even when sqlcmd fails.
$HookName = 'postprovision'
. (Join-Path $PSScriptRoot 'hook-common.ps1')

if ([Environment]::GetEnvironmentVariable('replicaEnabled') -ne 'true') {
    $plan = [Environment]::GetEnvironmentVariable('ORGANISATION_PLAN')
    Write-Output "postprovision: no SQL replica on this plan (ORGANISATION_PLAN=$(if ($plan) { $plan } else { 'standard' }))"
    exit 0
}
$group = Get-Required 'AZURE_RESOURCE_GROUP'
$server = Get-Required 'sqlServerName' ' (run azd provision first)'
$fqdn = Get-Required 'sqlServerFqdn'
$database = Get-Required 'replicaDatabaseName'
$identity = Get-Required 'managedIdentityName'
$principal = Get-Required 'managedIdentityPrincipalId'
if (-not (Get-Command sqlcmd -ErrorAction SilentlyContinue)) {
    Fail "postprovision: sqlcmd is needed to make the function app a user of the replica database; install go-sqlcmd (https://aka.ms/go-sqlcmd) and run 'azd hooks run postprovision'"
}

# This machine reaches the server through a firewall rule for its public address, removed afterwards.
$address = [Environment]::GetEnvironmentVariable('SQL_CLIENT_IP')
if (-not $address) {
    try { $address = (Invoke-RestMethod -Uri 'https://api.ipify.org' -TimeoutSec 10).Trim() } catch { $address = '' }
}
if (-not $address) { Fail "postprovision: cannot tell this machine's public address; set SQL_CLIENT_IP and run 'azd hooks run postprovision'" }
$rule = 'azd-postprovision'
az sql server firewall-rule create --resource-group $group --server $server --name $rule `
    --start-ip-address $address --end-ip-address $address --output none
if ($LASTEXITCODE -ne 0) { Fail "postprovision: could not open firewall rule $rule for $address" }
try {
    # WITH OBJECT_ID: the identity is found by its object id, so the server needs no directory read permission.
    $query = @"
IF DATABASE_PRINCIPAL_ID(N'$identity') IS NULL
  CREATE USER [$identity] FROM EXTERNAL PROVIDER WITH OBJECT_ID = '$principal';
GRANT CREATE SCHEMA, CREATE TABLE, CREATE VIEW, CREATE FUNCTION, CREATE ROLE, ALTER ANY USER, ALTER ANY ROLE TO [$identity];
GRANT VIEW DATABASE STATE, KILL DATABASE CONNECTION TO [$identity];
IF DATABASE_PRINCIPAL_ID(N'replica_reader') IS NULL CREATE ROLE replica_reader;
DENY EXECUTE ON sys.sp_getapplock TO replica_reader;
DENY EXECUTE ON sys.sp_releaseapplock TO replica_reader;
"@
    sqlcmd --server "tcp:$fqdn,1433" --database-name $database --authentication-method ActiveDirectoryAzCli --exit-on-error --query $query
    if ($LASTEXITCODE -ne 0) { Fail "postprovision: sqlcmd failed (exit code $LASTEXITCODE)" }
    Write-Output "postprovision: $identity is a user of $database on $fqdn"
}
finally {
    az sql server firewall-rule delete --resource-group $group --server $server --name $rule --output none
}
