#!/usr/bin/env pwsh
# azd postdeploy hook for Windows operators: the PowerShell twin of postdeploy.sh, which says what it
# does: waits for the host's blobs_extension key, runs the smoke test (smoke-test.js), then creates or
# updates the Event Grid subscription of the file-drop trigger with the filter of
# inbound-event-filter.json (the one definition of which events reach it).
$HookName = 'postdeploy'
. (Join-Path $PSScriptRoot 'hook-common.ps1')

$group = Get-Required 'AZURE_RESOURCE_GROUP'
$app = Get-Required 'functionAppName' ' (run azd provision first)'
$hostName = Get-Required 'functionAppHostName'
$topic = Get-Required 'blobEventsTopicName'

$key = ''
for ($attempt = 1; $attempt -le 12 -and -not $key; $attempt++) {
    $key = [string](az functionapp keys list --resource-group $group --name $app --query systemKeys.blobs_extension --output tsv 2> $null)
    if ($LASTEXITCODE -ne 0) { $key = '' }
    $key = $key.Trim()
    if (-not $key) {
        Write-Output "postdeploy: waiting for the host's blobs_extension key ($attempt/12)"
        Start-Sleep -Seconds 10
    }
}
if (-not $key) { Fail "postdeploy: the function app has no blobs_extension key yet; run 'azd hooks run postdeploy' once it has started" }

$env:BLOBS_EXTENSION_KEY = $key
node (Join-Path $PSScriptRoot 'smoke-test.js')
if ($LASTEXITCODE -ne 0) { exit 1 }

$filter = Get-Content -Raw (Join-Path $PSScriptRoot 'inbound-event-filter.json') | ConvertFrom-Json
$filterArgs = @('--included-event-types') + $filter.includedEventTypes + @('--subject-begins-with', $filter.subjectBeginsWith)
foreach ($advanced in $filter.advancedFilters) {
    $filterArgs += @('--advanced-filter', $advanced.key, $advanced.operatorType) + $advanced.values
}
az eventgrid system-topic event-subscription create `
    --resource-group $group `
    --system-topic-name $topic `
    --name inbound-files `
    --endpoint-type webhook `
    --endpoint "https://$hostName/runtime/webhooks/blobs?functionName=Host.Functions.feed-files-ingest&code=$key" `
    @filterArgs `
    --output none
if ($LASTEXITCODE -ne 0) { Fail 'postdeploy: az eventgrid system-topic event-subscription create failed' }
Write-Output 'postdeploy: Event Grid subscription inbound-files delivers inbound/ BlobCreated events of whole files to feed-files-ingest'
