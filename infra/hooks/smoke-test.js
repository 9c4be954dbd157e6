// The post-deployment smoke test (postdeploy.sh and postdeploy.ps1 run it; so can an operator):
//   node infra/hooks/smoke-test.js
// with functionAppHostName, functionAppName, AZURE_RESOURCE_GROUP and BLOBS_EXTENSION_KEY in the
// environment (azd's outputs; the key is the host's blobs_extension system key). It checks, and says
// what is wrong when they fail:
//   1. GET /api/v1/openapi.json answers 200 with the OpenAPI document. A 503 SERVICE_UNAVAILABLE is an
//      app setting the app cannot use (an unresolved Key Vault reference): the Key Vault references'
//      status is read from Azure Resource Manager and printed.
//   2. The host's blobs webhook answers Event Grid's validation handshake for feed-files-ingest (what
//      the Event Grid subscription needs): the API's catch-all route must not answer it.
// Exit code 0 when both pass, 1 otherwise. A starting app is waited for (SMOKE_TEST_TIMEOUT_SECONDS, 180).
"use strict";
const { execFileSync } = require("node:child_process");
const { randomUUID } = require("node:crypto");

const env = (name) => {
  const value = process.env[name];
  if (value === undefined || value === "") {
    console.error(`smoke test: ${name} is not set (run azd provision first)`);
    process.exit(1);
  }
  return value;
};
const host = env("functionAppHostName");
const base = `https://${host}`;
const deadline = Date.now() + Number(process.env.SMOKE_TEST_TIMEOUT_SECONDS ?? 180) * 1000;
const log = (line) => console.log(`smoke test: ${line}`);
const fail = (lines) => {
  for (const line of lines) console.error(`smoke test: ${line}`);
  process.exit(1);
};

/** One request; never throws (a network failure is status 0 with the reason as the body). */
async function request(url, init = {}) {
  try {
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(30_000) });
    return { status: response.status, text: await response.text() };
  } catch (error) {
    return { status: 0, text: String(error.cause?.message ?? error.message) };
  }
}

const json = (text) => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

/** Repeats `attempt` while the app is still starting (no answer, 502, 503 before the deadline). */
async function untilSettled(attempt) {
  for (;;) {
    const result = await attempt();
    const starting = result.status === 0 || result.status === 502 || result.status === 503;
    if (!starting || Date.now() > deadline) return result;
    await new Promise((resolve) => setTimeout(resolve, 5_000));
  }
}

/** The app settings whose Key Vault reference Azure could not resolve, with its reason. */
function unresolvedReferences() {
  const app = process.env.functionAppName;
  const group = process.env.AZURE_RESOURCE_GROUP;
  if (!app || !group) return ["(functionAppName and AZURE_RESOURCE_GROUP are needed to read the references' status)"];
  try {
    const answer = execFileSync(
      "az",
      [
        "rest",
        "--method",
        "get",
        "--url",
        `/subscriptions/{subscriptionId}/resourceGroups/${group}/providers/Microsoft.Web/sites/${app}/config/configreferences/appsettings?api-version=2022-03-01`,
        "--output",
        "json",
      ],
      { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], shell: process.platform === "win32" },
    );
    return (JSON.parse(answer).value ?? [])
      .filter((r) => r.properties?.status !== "Resolved")
      .map((r) => `${r.name}: ${r.properties?.status} (${r.properties?.details ?? "no details"})`);
  } catch (error) {
    return [`(could not read them: ${String(error.stderr || error.message).trim()})`];
  }
}

async function checkApi() {
  const url = `${base}/api/v1/openapi.json`;
  const { status, text } = await untilSettled(() => request(url));
  const body = json(text);
  if (status === 200 && typeof body?.openapi === "string") {
    log(`${url} answers its OpenAPI document (${body.openapi}, ${Object.keys(body.paths ?? {}).length} paths)`);
    return [];
  }
  if (status === 503 && body?.error?.code === "SERVICE_UNAVAILABLE") {
    const unresolved = unresolvedReferences();
    return [
      `${url} answers 503 SERVICE_UNAVAILABLE: the app is up but an app setting is unusable, most often a Key Vault reference Azure has not resolved.`,
      ...(unresolved.length > 0
        ? ["Key Vault references not resolved:", ...unresolved.map((line) => `  ${line}`)]
        : ["Every Key Vault reference resolves: the app's log (Application Insights) names the setting."]),
      "On a first provision the app's role on the vault may not have applied yet (infra/README.md, 'When the first provision meets role replication'):",
      `wait a few minutes, then: az functionapp restart --resource-group ${process.env.AZURE_RESOURCE_GROUP ?? "<group>"} --name ${process.env.functionAppName ?? "<app>"}; azd hooks run postdeploy`,
    ];
  }
  return [
    `${url} answered ${status === 0 ? `nothing (${text})` : `${status}: ${text.slice(0, 300)}`}; expected 200 with the OpenAPI document.`,
  ];
}

async function checkBlobsWebhook() {
  const key = env("BLOBS_EXTENSION_KEY");
  const url = `${base}/runtime/webhooks/blobs?functionName=Host.Functions.feed-files-ingest&code=${encodeURIComponent(key)}`;
  const validationCode = randomUUID();
  const handshake = [
    {
      id: randomUUID(),
      topic: "smoke-test",
      subject: "",
      data: { validationCode },
      eventType: "Microsoft.EventGrid.SubscriptionValidationEvent",
      eventTime: new Date().toISOString(),
      metadataVersion: "1",
      dataVersion: "1",
    },
  ];
  const { status, text } = await untilSettled(() =>
    request(url, {
      method: "POST",
      headers: { "content-type": "application/json", "aeg-event-type": "SubscriptionValidation" },
      body: JSON.stringify(handshake),
    }),
  );
  const body = json(text);
  if (status === 200 && body?.validationResponse === validationCode) {
    log(`the host's blobs webhook answers Event Grid's validation handshake for feed-files-ingest`);
    return [];
  }
  const where = `${base}/runtime/webhooks/blobs?functionName=Host.Functions.feed-files-ingest`;
  if (body?.error?.requestId !== undefined)
    return [
      `${where} was answered by the API (${status} ${body.error.code}), not by the Functions host: an HTTP route matches the host's /runtime/ paths (functions/not-found.ts's route must exclude them).`,
    ];
  return [
    `${where} answered ${status === 0 ? `nothing (${text})` : `${status}: ${text.slice(0, 300)}`}; expected 200 with the validation code.`,
    status === 401 || status === 403
      ? "The blobs_extension key was refused: take it again (az functionapp keys list) and rerun azd hooks run postdeploy."
      : "Is feed-files-ingest registered? An app whose settings are unusable registers its HTTP functions only (see the first check).",
  ];
}

(async () => {
  const problems = [...(await checkApi()), ...(await checkBlobsWebhook())];
  if (problems.length > 0) fail(problems);
  log("passed");
})();
