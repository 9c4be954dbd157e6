#!/bin/sh
# azd postprovision hook: on the Enterprise plan, makes the function app's managed identity a user of the
# replica database. `CREATE USER … FROM EXTERNAL PROVIDER` needs a Microsoft Entra administrator's
# connection, which Bicep cannot make; this runs as the deploying identity (the server's Entra
# administrator, see preprovision) with sqlcmd (go-sqlcmd) and the Azure CLI's sign-in. The user may
# create schemas, tables, views, functions and roles and manage users: the app then creates the
# analytics schema, the reader role's grants and the BI logins itself. It may also see every session
# of the database and end one (VIEW DATABASE STATE, KILL DATABASE CONNECTION): the logins' watchdog
# stops statements and sessions past a login's limits, which Azure SQL Database cannot enforce per
# user. The reader role is denied application locks (sp_getapplock), which only an administrator can
# deny. Safe to run again.
set -eu

if [ "${replicaEnabled:-false}" != "true" ]; then
  echo "postprovision: no SQL replica on this plan (ORGANISATION_PLAN=${ORGANISATION_PLAN:-standard})"
  exit 0
fi
: "${AZURE_RESOURCE_GROUP:?postprovision: AZURE_RESOURCE_GROUP is not set}"
: "${sqlServerName:?postprovision: sqlServerName is not set (run azd provision first)}"
: "${sqlServerFqdn:?postprovision: sqlServerFqdn is not set}"
: "${replicaDatabaseName:?postprovision: replicaDatabaseName is not set}"
: "${managedIdentityName:?postprovision: managedIdentityName is not set}"
: "${managedIdentityPrincipalId:?postprovision: managedIdentityPrincipalId is not set}"
if ! command -v sqlcmd >/dev/null 2>&1; then
  echo "postprovision: sqlcmd is needed to make the function app a user of the replica database; install go-sqlcmd (https://aka.ms/go-sqlcmd) and run 'azd hooks run postprovision'" >&2
  exit 1
fi

# This machine reaches the server through a firewall rule for its public address, removed afterwards.
address=${SQL_CLIENT_IP:-$(curl -fsS --max-time 10 https://api.ipify.org || true)}
if [ -z "$address" ]; then
  echo "postprovision: cannot tell this machine's public address; set SQL_CLIENT_IP and run 'azd hooks run postprovision'" >&2
  exit 1
fi
rule=azd-postprovision
az sql server firewall-rule create --resource-group "$AZURE_RESOURCE_GROUP" --server "$sqlServerName" --name "$rule" \
  --start-ip-address "$address" --end-ip-address "$address" --output none
trap 'az sql server firewall-rule delete --resource-group "$AZURE_RESOURCE_GROUP" --server "$sqlServerName" --name "$rule" --output none || true' EXIT

# WITH OBJECT_ID: the identity is found by its object id, so the server needs no directory read permission.
sqlcmd --server "tcp:$sqlServerFqdn,1433" --database-name "$replicaDatabaseName" --authentication-method ActiveDirectoryAzCli --exit-on-error --query "
IF DATABASE_PRINCIPAL_ID(N'$managedIdentityName') IS NULL
  CREATE USER [$managedIdentityName] FROM EXTERNAL PROVIDER WITH OBJECT_ID = '$managedIdentityPrincipalId';
GRANT CREATE SCHEMA, CREATE TABLE, CREATE VIEW, CREATE FUNCTION, CREATE ROLE, ALTER ANY USER, ALTER ANY ROLE TO [$managedIdentityName];
GRANT VIEW DATABASE STATE, KILL DATABASE CONNECTION TO [$managedIdentityName];
IF DATABASE_PRINCIPAL_ID(N'replica_reader') IS NULL CREATE ROLE replica_reader;
DENY EXECUTE ON sys.sp_getapplock TO replica_reader;
DENY EXECUTE ON sys.sp_releaseapplock TO replica_reader;
"
echo "postprovision: $managedIdentityName is a user of $replicaDatabaseName on $sqlServerFqdn"
