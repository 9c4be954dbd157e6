#!/bin/sh
# azd preprovision hook: the three secrets main.bicep stores in Key Vault, as azd environment values
# (JWT_SIGNING_KEY, WEBHOOK_SECRET_KEY, BOOTSTRAP_CLIENT_SECRET; infra/main.parameters.json reads them),
# and on the Enterprise plan (ORGANISATION_PLAN=enterprise) what the read-only SQL replica's server needs:
# its SQL administrator password (SQL_ADMINISTRATOR_PASSWORD, kept like the other secrets) and its
# Microsoft Entra administrator (SQL_ENTRA_ADMIN_*: the deploying identity unless the environment names one).
# A value the environment already has is kept, and one the environment lacks is read back from the
# environment's key vault when it exists (a new machine, after `azd env refresh`): the key sealing
# webhook and export secrets must never change, and the bootstrap secret is the first admin's password.
# Only a first provision generates them.
set -eu

case "${AZURE_ENV_NAME:-}" in
  "" | *[!a-z0-9]* | ???????????*)
    echo "preprovision: the azd environment name must be 1-10 lowercase letters and digits (it is part of every resource name); got '${AZURE_ENV_NAME:-}'" >&2
    exit 1
    ;;
esac

random_base64() { node -e "process.stdout.write(require('node:crypto').randomBytes($1).toString('base64'))"; }
random_hex() { node -e "process.stdout.write(require('node:crypto').randomBytes($1).toString('hex'))"; }

# ensure <azd value name> <key vault secret name> <generator...>
ensure() {
  name=$1
  secret=$2
  shift 2
  eval "value=\${$name:-}"
  if [ -z "$value" ] && [ -n "${keyVaultName:-}" ]; then
    value=$(az keyvault secret show --vault-name "$keyVaultName" --name "$secret" --query value --output tsv 2>/dev/null || true)
    [ -n "$value" ] && echo "preprovision: $name read from key vault $keyVaultName"
  fi
  if [ -z "$value" ]; then
    value=$("$@")
    echo "preprovision: $name generated"
  fi
  azd env set "$name" "$value" >/dev/null
}

ensure JWT_SIGNING_KEY jwt-signing-key random_base64 32
ensure WEBHOOK_SECRET_KEY webhook-secret-key random_base64 32
ensure BOOTSTRAP_CLIENT_SECRET bootstrap-client-secret random_hex 24

if [ "${ORGANISATION_PLAN:-standard}" = "enterprise" ]; then
  # Azure SQL's password policy: upper and lower case, a digit and a symbol, 192 random bits after them.
  random_sql_password() { node -e "process.stdout.write('Rp1-' + require('node:crypto').randomBytes(24).toString('base64url'))"; }
  ensure SQL_ADMINISTRATOR_PASSWORD sql-administrator-password random_sql_password
  if [ -z "${SQL_ENTRA_ADMIN_OBJECT_ID:-}" ]; then
    if [ "$(az account show --query user.type --output tsv)" = "user" ]; then
      login=$(az ad signed-in-user show --query userPrincipalName --output tsv)
      objectId=$(az ad signed-in-user show --query id --output tsv)
      principalType=User
    else
      login=$(az account show --query user.name --output tsv)
      objectId=$(az ad sp show --id "$login" --query id --output tsv)
      principalType=Application
    fi
    azd env set SQL_ENTRA_ADMIN_LOGIN "$login" >/dev/null
    azd env set SQL_ENTRA_ADMIN_OBJECT_ID "$objectId" >/dev/null
    azd env set SQL_ENTRA_ADMIN_TYPE "$principalType" >/dev/null
    echo "preprovision: the replica's Entra administrator is the deploying identity ($login)"
  fi
fi
