#!/bin/sh
# azd preprovision hook: the three secrets main.bicep stores in Key Vault, as azd environment values
# (JWT_SIGNING_KEY, WEBHOOK_SECRET_KEY, BOOTSTRAP_CLIENT_SECRET; infra/main.parameters.json reads them).
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
