#!/bin/sh
# azd preprovision hook (PowerShell twin: preprovision.ps1): the secrets main.bicep stores in Key Vault,
# as azd environment values (infra/main.parameters.json reads them):
#   JWT_SIGNING_KEY and JWT_KEY_ID, and during a key rotation JWT_PREVIOUS_SIGNING_KEY and
#   JWT_PREVIOUS_KEY_ID; WEBHOOK_SECRET_KEY; BOOTSTRAP_CLIENT_SECRET; on the Enterprise plan
#   (ORGANISATION_PLAN=enterprise) SQL_ADMINISTRATOR_PASSWORD and the replica server's Microsoft Entra
#   administrator (SQL_ENTRA_ADMIN_*: the deploying identity unless the environment names one).
# A value the environment has is kept. One it lacks is read back from the environment's key vault when
# that vault exists (found by azd's keyVaultName output, else by its tags in AZURE_RESOURCE_GROUP):
# WEBHOOK_SECRET_KEY seals every stored webhook and export secret and must never change. Only a first
# provision, with no vault, generates them. A vault that exists but cannot be read stops the hook: it
# never generates new secrets over existing ones.
set -eu

case "${AZURE_ENV_NAME:-}" in
  "" | *[!a-z0-9]* | ???????????*)
    echo "preprovision: the azd environment name must be 1-10 lowercase letters and digits (it is part of every resource name); got '${AZURE_ENV_NAME:-}'" >&2
    exit 1
    ;;
esac

random_base64() { node -e "process.stdout.write(require('node:crypto').randomBytes($1).toString('base64'))"; }
random_hex() { node -e "process.stdout.write(require('node:crypto').randomBytes($1).toString('hex'))"; }

errors=$(mktemp)
trap 'rm -f "$errors"' EXIT

# The environment's key vault, if it exists.
vault=${keyVaultName:-}
if [ -z "$vault" ] && [ -n "${AZURE_RESOURCE_GROUP:-}" ]; then
  if ! exists=$(az group exists --name "$AZURE_RESOURCE_GROUP" --output tsv 2>"$errors"); then
    echo "preprovision: cannot tell whether resource group $AZURE_RESOURCE_GROUP exists: $(cat "$errors")" >&2
    exit 1
  fi
  if [ "$exists" = "true" ]; then
    if ! vault=$(az keyvault list --resource-group "$AZURE_RESOURCE_GROUP" \
      --query "[?tags.application=='investment-data-service' && tags.environment=='$AZURE_ENV_NAME'].name | [0]" \
      --output tsv 2>"$errors"); then
      echo "preprovision: cannot list the key vaults of $AZURE_RESOURCE_GROUP (a vault of this environment may hold its secrets): $(cat "$errors")" >&2
      exit 1
    fi
  fi
fi
[ -n "$vault" ] && echo "preprovision: the environment's secrets are in key vault $vault"

cannot_read() {
  echo "preprovision: key vault $vault exists, but its secret $1 cannot be read:" >&2
  sed 's/^/  /' "$errors" >&2
  cat >&2 <<EOF
The deploying identity needs Key Vault Secrets Officer on the vault (the provision that created it
granted it to its own deployer). Someone who may assign roles runs:
  az role assignment create --role "Key Vault Secrets Officer" --assignee <your object id> \\
    --scope "\$(az keyvault show --name $vault --query id --output tsv)"
then, once Azure has applied it (usually within 5 minutes): azd provision
New secrets are NOT generated: they would make every stored webhook and export secret unreadable and
every issued token invalid.
EOF
  exit 1
}

# vault_read <secret> <query>: prints the value; returns 3 when the vault has no such secret, and stops
# the hook on any other failure (no access, no network).
vault_read() {
  if out=$(az keyvault secret show --vault-name "$vault" --name "$1" --query "$2" --output tsv 2>"$errors"); then
    printf '%s' "$out"
    return 0
  fi
  if grep -q -E "SecretNotFound|was not found" "$errors"; then return 3; fi
  cannot_read "$1"
}

# ensure <azd value name> <key vault secret name> <generator...>
ensure() {
  name=$1
  secret=$2
  shift 2
  eval "value=\${$name:-}"
  stored=""
  found=false
  if [ -n "$vault" ]; then
    if stored=$(vault_read "$secret" value); then found=true; else [ $? -eq 3 ] || exit 1; fi
  fi
  if [ -n "$value" ]; then
    if $found && [ "$stored" != "$value" ]; then
      if [ "$name" = "WEBHOOK_SECRET_KEY" ]; then
        echo "preprovision: WEBHOOK_SECRET_KEY of this environment differs from key vault $vault's, and it must never change (it seals every stored webhook and export secret). Run 'azd env set WEBHOOK_SECRET_KEY \"\"' to take the vault's, then azd provision." >&2
        exit 1
      fi
      echo "preprovision: $name differs from key vault $vault's: this provision replaces it (a rotation)"
    fi
  elif $found; then
    value=$stored
    echo "preprovision: $name read from key vault $vault"
  else
    value=$("$@")
    echo "preprovision: $name generated"
  fi
  azd env set "$name" "$value" >/dev/null
}

ensure JWT_SIGNING_KEY jwt-signing-key random_base64 32
ensure WEBHOOK_SECRET_KEY webhook-secret-key random_base64 32
ensure BOOTSTRAP_CLIENT_SECRET bootstrap-client-secret random_hex 24

# The key rotation's state (infra/README.md, "Rotating the keys"): the kid of the signing key, and the
# retired key still accepted, as the vault's signing-key secret records them in its tags. A value the
# environment has, even empty (a rotation ended), is kept.
kid=""
previous_kid=""
if [ -n "$vault" ]; then
  kid=$(vault_read jwt-signing-key tags.kid) || [ $? -eq 3 ] || exit 1
  previous_kid=$(vault_read jwt-signing-key tags.previousKid) || [ $? -eq 3 ] || exit 1
fi
if [ -z "${JWT_KEY_ID:-}" ]; then
  azd env set JWT_KEY_ID "${kid:-k1}" >/dev/null
  [ -n "$kid" ] && echo "preprovision: JWT_KEY_ID ($kid) read from key vault $vault"
fi
if [ -z "${JWT_PREVIOUS_KEY_ID+set}" ] && [ -z "${JWT_PREVIOUS_SIGNING_KEY+set}" ] && [ -n "$previous_kid" ]; then
  previous=$(vault_read jwt-previous-signing-key value) || cannot_read jwt-previous-signing-key
  azd env set JWT_PREVIOUS_KEY_ID "$previous_kid" >/dev/null
  azd env set JWT_PREVIOUS_SIGNING_KEY "$previous" >/dev/null
  echo "preprovision: the retired signing key ($previous_kid) read from key vault $vault: still accepted"
elif [ "${JWT_PREVIOUS_KEY_ID:+set}" != "${JWT_PREVIOUS_SIGNING_KEY:+set}" ]; then
  echo "preprovision: JWT_PREVIOUS_SIGNING_KEY and JWT_PREVIOUS_KEY_ID are set together or not at all" >&2
  exit 1
fi

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
