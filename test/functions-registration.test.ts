import { readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type * as BlobTriggerModule from "../local/blob-trigger";
import type * as FunctionsCoreModule from "../local/functions-core";
import type { CoreRegistration } from "../local/functions-core";
import type * as FunctionsHostModule from "../local/functions-host";
import type { LoadedFunction } from "../local/functions-host";
import type * as ConfigModule from "../shared/config";
import type { AnyEndpoint } from "../shared/http/endpoint";
import type * as RegistryModule from "../shared/http/registry";
import { root, TEST_JWT_KEY, TEST_WEBHOOK_KEY } from "./runtime";

/**
 * The compiled functions/ loaded through the real `@azure/functions` package, with the capturing
 * `@azure/functions-core` the local host installs in place of the Functions worker: what each function
 * registers is what Azure's host reads, and the local hosts serve exactly these triggers.
 */
describe("function registration (what Azure and the local runtime both read)", () => {
  const dist = join(root, "dist");
  const load = createRequire(join(dist, "index.js"));
  let functions: LoadedFunction[];
  let raw: CoreRegistration[];
  let endpoints: readonly AnyEndpoint[];
  let schedules: { reap: string; sweep: string; valuationSweep: string; outboxRelay: string; blobSources: string };

  beforeAll(() => {
    process.env.COSMOS_ENDPOINT ??= "http://127.0.0.1:1";
    process.env.JWT_SIGNING_KEY ??= TEST_JWT_KEY;
    process.env.WEBHOOK_SECRET_KEY ??= TEST_WEBHOOK_KEY;
    const host = load("./local/functions-host.js") as typeof FunctionsHostModule;
    functions = host.loadFunctions(root);
    raw = (load("./local/functions-core.js") as typeof FunctionsCoreModule).registrations;
    endpoints = (load("./shared/http/registry.js") as typeof RegistryModule).registeredEndpoints();
    const config = (load("./shared/config.js") as typeof ConfigModule).getConfig();
    schedules = {
      reap: config.JOBS_REAP_SCHEDULE,
      sweep: config.DELIVERIES_SWEEP_SCHEDULE,
      valuationSweep: config.VALUATION_SWEEP_SCHEDULE,
      outboxRelay: config.OUTBOX_RELAY_SCHEDULE,
      blobSources: config.BLOB_SOURCES_SCHEDULE,
    };
  });

  it("registers, through the entry point package.json names, one function per file of functions/, named after it", () => {
    const files = readdirSync(join(root, "functions"))
      .filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts") && f !== "index.ts")
      .map((f) => f.slice(0, -3))
      .sort();
    expect(functions.map((f) => f.name).sort()).toEqual(files);
    expect(new Set(functions.map((f) => f.name)).size).toBe(functions.length);
  });

  it("every HTTP function is anonymous-level, on its endpoint's route and methods, with an HTTP output", () => {
    const http = functions.filter((f) => f.trigger.type === "httpTrigger");
    expect(http.map((f) => f.name).sort()).toEqual(endpoints.map((e) => e.name).sort());
    for (const endpoint of endpoints) {
      const fn = http.find((f) => f.name === endpoint.name);
      expect(fn, endpoint.name).toBeDefined();
      expect(fn?.trigger.authLevel, endpoint.name).toBe("anonymous");
      expect(fn?.trigger.route, endpoint.name).toBe(endpoint.route);
      const methods = (fn?.trigger.methods as string[]).map((m) => m.toUpperCase()).sort();
      expect(methods, endpoint.name).toEqual(
        endpoint.method === "ANY" ? ["DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT"] : [endpoint.method],
      );
      const outputs = Object.values(raw.find((r) => r.name === endpoint.name)?.bindings ?? {}).filter(
        (b) => b.direction === "out",
      );
      expect(
        outputs.map((b) => b.type),
        endpoint.name,
      ).toEqual(["http"]);
    }
  });

  it("the feeds settings are admin endpoints; the dry run takes its body as raw bytes up to 10 MB", () => {
    const feeds = endpoints.filter((e) => e.name.startsWith("feeds-"));
    expect(feeds.map((e) => `${e.method} ${e.route}`).sort()).toEqual([
      "DELETE api/v1/settings/feeds/{id}",
      "GET api/v1/settings/feeds",
      "GET api/v1/settings/feeds/{id}",
      "PATCH api/v1/settings/feeds/{id}",
      "POST api/v1/settings/feeds",
      "POST api/v1/settings/feeds/{id}/rotate-credentials",
      "POST api/v1/settings/feeds/{id}/test",
    ]);
    for (const e of feeds) expect(e.scope, e.name).toBe("api.admin");
    const dryRun = feeds.find((e) => e.name === "feeds-test");
    expect(dryRun).toMatchObject({ rawBody: "bytes", maxBodyBytes: 10 * 1024 * 1024 });
    expect(dryRun?.body).toBeUndefined();
  });

  it("blob sources: the settings endpoints need api.admin; runs are performed from the blob-sources queue", () => {
    const sources = endpoints.filter((e) => e.name.startsWith("blob-sources-"));
    expect(sources.map((e) => `${e.method} ${e.route}`).sort()).toEqual([
      "DELETE api/v1/settings/blob-sources/{id}",
      "GET api/v1/settings/blob-sources",
      "GET api/v1/settings/blob-sources/{id}",
      "GET api/v1/settings/blob-sources/{id}/runs",
      "PATCH api/v1/settings/blob-sources/{id}",
      "POST api/v1/settings/blob-sources",
      "POST api/v1/settings/blob-sources/{id}/run",
    ]);
    for (const e of sources) expect(e.scope, e.name).toBe("api.admin");
    const run = functions.find((f) => f.name === "blob-sources-run");
    expect(run?.trigger).toMatchObject({ queueName: "blob-sources", connection: "SERVICEBUS" });
  });

  it("the webhook fan-out and delivery functions read the events and deliveries queues over the SERVICEBUS connection", () => {
    for (const [name, queue] of [
      ["events-fan-out", "events"],
      ["webhook-deliver", "deliveries"],
      ["valuations-run", "valuations"],
      ["feed-files-queued", "feed-files"],
    ]) {
      const fn = functions.find((f) => f.name === name);
      expect(fn?.trigger.queueName, name).toBe(queue);
      expect(fn?.trigger.connection, name).toBe("SERVICEBUS");
    }
  });

  it("the exports settings are admin endpoints", () => {
    const exports = endpoints.filter((e) => e.name.startsWith("exports-"));
    expect(exports.map((e) => `${e.method} ${e.route}`).sort()).toEqual([
      "DELETE api/v1/settings/exports/{id}",
      "GET api/v1/settings/exports",
      "GET api/v1/settings/exports/{id}",
      "GET api/v1/settings/exports/{id}/runs",
      "PATCH api/v1/settings/exports/{id}",
      "POST api/v1/settings/exports",
      "POST api/v1/settings/exports/preview",
      "POST api/v1/settings/exports/{id}/run",
    ]);
    for (const e of exports) expect(e.scope, e.name).toBe("api.admin");
    const run = functions.find((f) => f.name === "exports-run");
    expect([run?.trigger.queueName, run?.trigger.connection]).toEqual(["exports", "SERVICEBUS"]);
  });

  it("the SQL replica reads each source container's change feed: one trigger each, identity-based COSMOS connection, checkpoints in leases, from the beginning, failures retried forever", () => {
    const feeds = functions.filter((f) => f.trigger.type === "cosmosDBTrigger");
    expect(feeds.map((f) => [f.name, f.trigger.containerName]).sort()).toEqual(
      [
        ["replica-portfolios", "portfolios"],
        ["replica-securities", "securities"],
        ["replica-prices", "prices"],
        ["replica-fx-rates", "fxRates"],
        ["replica-positions", "positions"],
        ["replica-transactions", "transactions"],
        ["replica-jobs", "jobs"],
        ["replica-exceptions", "exceptions"],
        ["replica-versions", "versions"],
      ].sort(),
    );
    for (const fn of feeds) {
      expect(fn.trigger, fn.name).toMatchObject({
        connection: "COSMOS",
        databaseName: "%COSMOS_DATABASE%",
        leaseContainerName: "leases",
        leaseContainerPrefix: `${fn.name}:`,
        startFromBeginning: true,
      });
      expect(fn.trigger.createLeaseContainerIfNotExists, fn.name).not.toBe(true);
      expect(fn.retryOptions, fn.name).toMatchObject({ strategy: "exponentialBackoff", maxRetryCount: -1 });
    }
    // The logins' watchdog: a timer every few seconds (statement and connection limits a login cannot lift).
    expect(functions.find((f) => f.name === "replica-logins-enforce")?.trigger).toMatchObject({
      type: "timerTrigger",
      schedule: "*/5 * * * * *",
      runOnStartup: false,
    });
  });

  it("the file drop's trigger is an Event Grid blob trigger that hands the function a reference to the blob (sdkBinding), never its bytes", async () => {
    const ingest = functions.find((f) => f.name === "feed-files-ingest");
    expect(ingest?.trigger).toMatchObject({
      type: "blobTrigger",
      path: "inbound/{name}",
      connection: "AzureWebJobsStorage",
      source: "EventGrid",
      sdkBinding: true,
      properties: { supportsDeferredBinding: "true" },
    });
    // Every blob trigger is one the local blob host runs as Azure does (Event Grid, a reference).
    const blobTrigger = load("./local/blob-trigger.js") as typeof BlobTriggerModule;
    for (const fn of functions.filter((f) => f.trigger.type === "blobTrigger"))
      expect(() => blobTrigger.checkBlobTrigger(fn), fn.name).not.toThrow();

    // What the Functions host sends the worker for such a trigger (model binding data, as the Storage
    // Blobs extension writes it), turned into the handler's argument by @azure/functions itself.
    const model = (load("./local/functions-core.js") as typeof FunctionsCoreModule).programmingModel as {
      getInvocationModel(ctx: unknown): { getArguments(): Promise<{ inputs: unknown[] }> };
    };
    const registration = raw.find((r) => r.name === "feed-files-ingest");
    const trigger = ingest?.trigger as unknown as { name: string };
    const content = JSON.stringify({
      Connection: "AzureWebJobsStorage",
      ContainerName: "inbound",
      BlobName: "fd_0123/positions-1.csv",
    });
    const invocation = model.getInvocationModel({
      invocationId: "i-1",
      metadata: { name: "feed-files-ingest", bindings: registration?.bindings },
      request: {
        inputData: [
          {
            name: trigger.name,
            data: {
              modelBindingData: {
                version: "1.0",
                source: "AzureStorageBlobs",
                contentType: "application/json",
                content: Buffer.from(content),
              },
            },
          },
        ],
        triggerMetadata: {},
      },
      log: () => undefined,
    });
    const { inputs } = await invocation.getArguments();
    expect(inputs).toEqual([
      { connection: "AzureWebJobsStorage", containerName: "inbound", blobName: "fd_0123/positions-1.csv" },
    ]);
  });

  it("every other function is a timer on its configured schedule", () => {
    const others = functions.filter((f) => f.trigger.type !== "httpTrigger" && f.trigger.type !== "cosmosDBTrigger");
    expect(others.map((f) => [f.name, f.trigger.type, f.trigger.schedule])).toEqual([
      ["blob-sources-run", "serviceBusTrigger", undefined],
      ["blob-sources-schedule", "timerTrigger", schedules.blobSources],
      ["deliveries-sweep", "timerTrigger", schedules.sweep],
      ["events-fan-out", "serviceBusTrigger", undefined],
      ["exports-run", "serviceBusTrigger", undefined],
      [
        "exports-schedule",
        "timerTrigger",
        (load("./shared/config.js") as typeof ConfigModule).getConfig().EXPORTS_SCHEDULE,
      ],
      ["feed-files-ingest", "blobTrigger", undefined],
      ["feed-files-queued", "serviceBusTrigger", undefined],
      ["jobs-reap", "timerTrigger", schedules.reap],
      ["outbox-relay", "timerTrigger", schedules.outboxRelay],
      [
        "replica-logins-enforce",
        "timerTrigger",
        (load("./shared/config.js") as typeof ConfigModule).getConfig().REPLICA_WATCHDOG_SCHEDULE,
      ],
      ["valuations-run", "serviceBusTrigger", undefined],
      ["valuations-sweep", "timerTrigger", schedules.valuationSweep],
      ["webhook-deliver", "serviceBusTrigger", undefined],
    ]);
  });
});
