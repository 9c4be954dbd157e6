#!/bin/sh
# azd postdeploy hook: subscribes the file-drop trigger (feed-files-ingest, a blob trigger with
# source EventGrid) to the storage account's BlobCreated events under inbound/. Event Grid delivers to
# the host's blobs webhook, which takes the blobs_extension system key; the host creates that key when
# it first starts with the published code, so this runs after every deploy (creating or updating the
# one subscription). Which events reach the function is defined once, in inbound-event-filter.json
# beside this hook (the local runtime's blob host applies the same file): BlobCreated under inbound/,
# and only from the APIs that mean a whole file is there (not SftpCreate, the empty blob Azure's SFTP
# endpoint makes when an upload opens, nor CreateFile, the empty file of a Data Lake client).
set -eu

: "${AZURE_RESOURCE_GROUP:?postdeploy: AZURE_RESOURCE_GROUP is not set}"
: "${functionAppName:?postdeploy: functionAppName is not set (run azd provision first)}"
: "${functionAppHostName:?postdeploy: functionAppHostName is not set}"
: "${blobEventsTopicName:?postdeploy: blobEventsTopicName is not set}"

key=""
attempt=0
while [ -z "$key" ] && [ "$attempt" -lt 12 ]; do
  key=$(az functionapp keys list --resource-group "$AZURE_RESOURCE_GROUP" --name "$functionAppName" --query systemKeys.blobs_extension --output tsv 2>/dev/null || true)
  if [ -z "$key" ]; then
    attempt=$((attempt + 1))
    echo "postdeploy: waiting for the host's blobs_extension key ($attempt/12)"
    sleep 10
  fi
done
if [ -z "$key" ]; then
  echo "postdeploy: the function app has no blobs_extension key yet; run 'azd hooks run postdeploy' once it has started" >&2
  exit 1
fi

# The smoke test first (PowerShell twin of this hook: postdeploy.ps1): the API answers, and the host's
# blobs webhook answers Event Grid's handshake, which the subscription below needs.
BLOBS_EXTENSION_KEY=$key node "$(dirname "$0")/smoke-test.js"

# The filter file as the Azure CLI's arguments, one a line (node: azd builds the app with it).
filter_file="$(cd "$(dirname "$0")" && pwd)/inbound-event-filter.json"
filter_args=$(node -e '
const filter = JSON.parse(require("node:fs").readFileSync(process.argv[1], "utf8"));
const args = ["--included-event-types", ...filter.includedEventTypes, "--subject-begins-with", filter.subjectBeginsWith];
for (const f of filter.advancedFilters) args.push("--advanced-filter", f.key, f.operatorType, ...f.values);
process.stdout.write(args.join("\n"));
' "$filter_file")
set -f
old_ifs=$IFS
IFS='
'
# shellcheck disable=SC2086 # split on newlines only: each line is one argument
set -- $filter_args
IFS=$old_ifs
set +f

az eventgrid system-topic event-subscription create \
  --resource-group "$AZURE_RESOURCE_GROUP" \
  --system-topic-name "$blobEventsTopicName" \
  --name inbound-files \
  --endpoint-type webhook \
  --endpoint "https://$functionAppHostName/runtime/webhooks/blobs?functionName=Host.Functions.feed-files-ingest&code=$key" \
  "$@" \
  --output none
echo "postdeploy: Event Grid subscription inbound-files delivers inbound/ BlobCreated events of whole files to feed-files-ingest"
