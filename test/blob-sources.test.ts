import { CosmosClient } from "@azure/cosmos";
import { CredentialUnavailableError } from "@azure/identity";
import { BlobServiceClient, StorageSharedKeyCredential, type ContainerClient } from "@azure/storage-blob";
import type { ContainerLocation } from "../shared/domain/blob-source-container-url";
import { BlobCustomerContainers } from "../shared/adapters/blob/blob-customer-containers";
import { assert, beforeAll, describe, expect, it, vi } from "vitest";
import { Composition } from "../shared/composition";
import { parseConfig } from "../shared/config";
import {
  adminToken,
  call,
  cosmosEndpoint,
  newClient,
  storageConnectionString,
  useOwnRuntime,
  type Reply,
} from "./http";
import {
  COSMOS_KEY,
  createPortfolio,
  createSecurities,
  holdingsOf,
  imported,
  newIsin,
  price,
  securityRecord,
  whenValued,
} from "./investment-fixtures";
import { TEST_JWT_KEY, TEST_WEBHOOK_KEY } from "./runtime";

// The runtime's own blob-sources-schedule timer fires every 2 s, so a source made due runs without waiting a minute.
useOwnRuntime({ BLOB_SOURCES_SCHEDULE: "*/2 * * * * *" });

const BASE = "/api/v1/settings/blob-sources";
const iso = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

const securitiesFeed = {
  name: "securities from the customer's container",
  provider: "Customer",
  dataType: "securities",
  format: "csv",
  filePattern: "securities-*.csv",
  mapping: { isin: "ISIN", name: "Name", assetClass: "Class", currency: "Ccy" },
  status: "live",
};

const csv = (...rows: string[][]): string => `ISIN,Name,Class,Ccy\n${rows.map((r) => r.join(",")).join("\n")}\n`;

describe("System settings › blob sources", () => {
  let token: string;
  let blobs: BlobServiceClient;
  let emulator: string;
  let feedId: string;
  let customer: ContainerClient;

  const create = (body: unknown): Promise<Reply> => call("POST", BASE, { token, body });
  const source = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
    name: "custodian drop",
    containerUrl: `${emulator}/${customer.containerName}`,
    prefix: "in/",
    filePattern: "securities-*.csv",
    feedId,
    schedule: { every: "1d", at: "06:30" },
    ...over,
  });
  const newSource = async (over: Record<string, unknown> = {}): Promise<Record<string, any>> => {
    const reply = await create(source(over));
    expect(reply.status, reply.text).toBe(201);
    return reply.body.data;
  };
  const runsOf = async (id: string): Promise<Record<string, any>[]> => {
    const reply = await call("GET", `${BASE}/${id}/runs?pageSize=100`, { token });
    expect(reply.status, reply.text).toBe(200);
    return reply.body.data;
  };
  /** Starts a run and waits for its outcome. */
  const runNow = async (id: string): Promise<Record<string, any>> => {
    const started = await call("POST", `${BASE}/${id}/run`, { token });
    expect(started.status, started.text).toBe(202);
    expect(started.body.data).toMatchObject({ blobSourceId: id, trigger: "manual", status: "running", startedAt: iso });
    return vi.waitFor(
      async () => {
        const run = (await runsOf(id)).find((r) => r.id === started.body.data.id && r.status !== "running");
        assert.isDefined(run, `run ${started.body.data.id} finished`);
        return run;
      },
      { timeout: 20_000, interval: 100 },
    );
  };
  const jobsOf = async (feed: string): Promise<Record<string, any>[]> => {
    const reply = await call("GET", `/api/v1/jobs?feedId=${feed}&pageSize=100`, { token });
    expect(reply.status, reply.text).toBe(200);
    return reply.body.data;
  };
  /** The finished job of a file (named as in the customer's container), other than `except`. */
  const finishedJob = (feed: string, fileName: string, except?: string): Promise<Record<string, any>> =>
    vi.waitFor(
      async () => {
        const done = (await jobsOf(feed)).find(
          (j) => j.fileName === fileName && j.status !== "running" && j.id !== except,
        );
        assert.isDefined(done, `the job of ${fileName}`);
        return done;
      },
      { timeout: 20_000, interval: 100 },
    );
  /** Every blob of the customer's container with its ETag: what "unchanged" means. */
  const customerState = async (): Promise<Record<string, string>> => {
    const state: Record<string, string> = {};
    for await (const b of customer.listBlobsFlat()) state[b.name] = b.properties.etag ?? "";
    return state;
  };
  const put = async (name: string, content: string): Promise<void> => {
    await customer.getBlockBlobClient(name).upload(content, Buffer.byteLength(content));
  };
  const newCustomerContainer = async (): Promise<ContainerClient> => {
    const container = blobs.getContainerClient(
      `customer-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`,
    );
    await container.create();
    return container;
  };

  beforeAll(async () => {
    token = await adminToken();
    blobs = BlobServiceClient.fromConnectionString(storageConnectionString());
    emulator = blobs.url.replace(/\/$/, "");
    customer = await newCustomerContainer();
    const feed = await call("POST", "/api/v1/settings/feeds", { token, body: securitiesFeed });
    expect(feed.status, feed.text).toBe(201);
    feedId = feed.body.data.id;
  });

  it("creates, reads, lists, changes and deletes a blob source; nextRunAt follows the schedule and the status", async () => {
    const before = Date.now();
    const reply = await create(source({ schedule: { every: "15m" } }));
    expect(reply.status, reply.text).toBe(201);
    const created = reply.body.data;
    expect(reply.headers.get("location")).toBe(`${BASE}/${created.id}`);
    expect(created).toEqual({
      id: expect.stringMatching(/^bs_/),
      name: "custodian drop",
      containerUrl: `${emulator}/${customer.containerName}`,
      prefix: "in/",
      filePattern: "securities-*.csv",
      feedId,
      schedule: { every: "15m" },
      status: "enabled",
      nextRunAt: iso,
      lastRun: null,
      createdAt: iso,
      updatedAt: iso,
    });
    const next = Date.parse(created.nextRunAt);
    expect(next).toBeGreaterThan(before);
    expect(next - before).toBeLessThanOrEqual(15 * 60_000);
    expect(new Date(next).getUTCMinutes() % 15).toBe(0);

    expect((await call("GET", `${BASE}/${created.id}`, { token })).body.data).toEqual(created);
    const list = await call("GET", `${BASE}?pageSize=200`, { token });
    expect(list.status).toBe(200);
    expect(list.body.data).toContainEqual(created);
    expect(list.body.pagination).toMatchObject({ page: 1, pageSize: 200 });

    const cron = await call("PATCH", `${BASE}/${created.id}`, {
      token,
      body: { schedule: "0 30 6 * * 1-5", prefix: null, name: "renamed" },
    });
    expect(cron.status, cron.text).toBe(200);
    expect(cron.body.data).toMatchObject({ schedule: "0 30 6 * * 1-5", prefix: null, name: "renamed" });
    const at = new Date(cron.body.data.nextRunAt);
    expect([at.getUTCHours(), at.getUTCMinutes(), at.getUTCSeconds()]).toEqual([6, 30, 0]);
    expect([1, 2, 3, 4, 5]).toContain(at.getUTCDay());

    const disabled = await call("PATCH", `${BASE}/${created.id}`, { token, body: { status: "disabled" } });
    expect(disabled.body.data).toMatchObject({ status: "disabled", nextRunAt: null });
    const enabled = await call("PATCH", `${BASE}/${created.id}`, { token, body: { status: "enabled" } });
    expect(enabled.body.data.nextRunAt).toBe(cron.body.data.nextRunAt);

    expect((await call("DELETE", `${BASE}/${created.id}`, { token })).status).toBe(204);
    expect((await call("GET", `${BASE}/${created.id}`, { token })).status).toBe(404);
    expect((await call("DELETE", `${BASE}/${created.id}`, { token })).status).toBe(404);

    // The contract is published from the same schemas.
    const doc = (await call("GET", "/api/v1/openapi.json")).body;
    for (const name of [
      "BlobSource",
      "BlobSourceCreate",
      "BlobSourcePatch",
      "BlobSourceSchedule",
      "BlobSourceRun",
      "BlobSourceCopiedFile",
    ])
      expect(doc.components.schemas[name], name).toBeDefined();
    expect(doc.components.schemas.BlobSourceRun.properties.status.enum).toEqual(["running", "succeeded", "failed"]);
    expect(Object.keys(doc.paths[`${BASE}/{id}/run`].post.responses)).toEqual(expect.arrayContaining(["202", "404"]));
    expect(doc.paths[`${BASE}/{id}/runs`].get.parameters.map((p: { name: string }) => p.name).sort()).toEqual([
      "cursor",
      "id",
      "page",
      "pageSize",
    ]);
  });

  it("422 names the field: unknown feed, bad schedules, bad glob, container URLs that are not a container or carry credentials", async () => {
    const fieldsOf = async (body: unknown, method = "POST", path = BASE): Promise<string[]> => {
      const reply = await call(method, path, { token, body });
      expect(reply.status, reply.text).toBe(422);
      expect(reply.body.error.code).toBe("VALIDATION_ERROR");
      return reply.body.error.details.map((d: { field: string }) => d.field);
    };
    expect(await fieldsOf(source({ feedId: "fd_nope" }))).toEqual(["feedId"]);
    expect(await fieldsOf(source({ schedule: "0 0 * * *" }))).toEqual(["schedule"]);
    expect(await fieldsOf(source({ schedule: "0 61 * * * *" }))).toEqual(["schedule"]);
    expect(await fieldsOf(source({ schedule: "*/5 * * * * *" }))).toEqual(["schedule"]);
    expect(await fieldsOf(source({ schedule: { every: "5m" } }))).toEqual(["schedule"]);
    expect(await fieldsOf(source({ schedule: { every: "1d", at: "25:00" } }))).toEqual(["schedule.at"]);
    expect(await fieldsOf(source({ filePattern: "in/securities-*.csv" }))).toEqual(["filePattern"]);
    expect(await fieldsOf(source({ filePattern: "!securities-*.csv" }))).toEqual(["filePattern"]);
    expect(await fieldsOf(source({ status: "paused" }))).toEqual(["status"]);
    expect(await fieldsOf(source({ extra: 1 }))).toEqual(["body"]);
    for (const url of [
      "https://custacct01.blob.core.windows.net/drop?sv=2024-01-01&sig=secret",
      "https://user:pw@custacct01.blob.core.windows.net/drop",
      "http://custacct01.blob.core.windows.net/drop",
      "https://custacct01.blob.core.windows.net/drop/sub/folder",
      "https://files.example.com/drop",
      `${emulator}/Not_A_Container`,
      "not a url",
    ]) {
      const reply = await create(source({ containerUrl: url }));
      expect(reply.status, url).toBe(422);
      expect(
        reply.body.error.details.map((d: { field: string }) => d.field),
        url,
      ).toEqual(["containerUrl"]);
      expect(reply.text).not.toContain("secret");
    }
    // Every problem the service checks after the body's shape, in one answer.
    expect(await fieldsOf(source({ containerUrl: "https://files.example.com/drop", feedId: "fd_nope" }))).toEqual([
      "containerUrl",
      "feedId",
    ]);
    // An Azure container is taken as it is written (the managed identity reads it in Azure).
    const azure = await newSource({
      containerUrl: "https://custacct01.blob.core.windows.net/drop/",
      status: "disabled",
    });
    expect(azure).toMatchObject({ containerUrl: "https://custacct01.blob.core.windows.net/drop", nextRunAt: null });

    const id = (await newSource()).id as string;
    expect(await fieldsOf({ schedule: "bad" }, "PATCH", `${BASE}/${id}`)).toEqual(["schedule"]);
    expect(await fieldsOf({ feedId: "fd_nope" }, "PATCH", `${BASE}/${id}`)).toEqual(["feedId"]);
    expect(
      await fieldsOf({ containerUrl: "https://custacct01.blob.core.windows.net/x?sig=1" }, "PATCH", `${BASE}/${id}`),
    ).toEqual(["containerUrl"]);
    expect(await fieldsOf({}, "PATCH", `${BASE}/${id}`)).toEqual(["body"]);
    for (const [method, path] of [
      ["GET", `${BASE}/bs_missing`],
      ["PATCH", `${BASE}/bs_missing`],
      ["POST", `${BASE}/bs_missing/run`],
      ["GET", `${BASE}/bs_missing/runs`],
    ] as const) {
      const reply = await call(method, path, { token, ...(method === "PATCH" ? { body: { name: "x" } } : {}) });
      expect(reply.status, `${method} ${path}`).toBe(404);
    }
    const reader = await newClient(token, ["api.read", "api.write"]);
    expect((await call("GET", BASE, { token: reader.token })).status).toBe(403);
    expect((await call("POST", `${BASE}/${id}/run`, { token: reader.token })).status).toBe(403);
  });

  it("the service's own containers are no source: 422 on containerUrl, and a source saved before the rule fails its run and copies nothing", async () => {
    for (const own of ["archive", "inbound", "quarantine", "exports", "azure-webjobs-hosts"]) {
      for (const reply of [
        await create(source({ containerUrl: `${emulator}/${own}` })),
        await call("PATCH", `${BASE}/${(await newSource({ status: "disabled" })).id}`, {
          token,
          body: { containerUrl: `${emulator}/${own}` },
        }),
      ]) {
        expect(reply.status, `${own}: ${reply.text}`).toBe(422);
        expect(reply.body.error.details, own).toEqual([
          {
            field: "containerUrl",
            message: `"${own}" is one of the service's own containers; name another container of the emulator`,
          },
        ]);
      }
    }
    // What the probe did: a source on the service's archive, where another feed's imported files lie.
    const isin = newIsin("GB");
    const archived = `fd_other/securities-archived-${Date.now().toString(36)}.csv`;
    const content = csv([isin, "Archived plc", "equity", "EUR"]);
    await blobs.getContainerClient("archive").getBlockBlobClient(archived).upload(content, Buffer.byteLength(content));
    const legacy = await newSource({ prefix: "fd_other/", status: "disabled" });
    const cosmos = new CosmosClient({
      endpoint: cosmosEndpoint(),
      key: COSMOS_KEY,
      connectionPolicy: { enableEndpointDiscovery: false },
    });
    const stored = cosmos.database("investment-data").container("settings").item(legacy.id, "blob-source");
    const { resource } = await stored.read();
    await stored.replace({ ...resource, containerUrl: `${emulator}/archive` });
    const run = await runNow(legacy.id);
    expect(run).toMatchObject({
      status: "failed",
      listed: 0,
      copied: 0,
      files: [],
      error: `containerUrl "archive" is one of the service's own containers; name another container of the emulator`,
    });
    await new Promise((r) => setTimeout(r, 1000)); // waits to show that no job ingests the archived file
    expect((await jobsOf(feedId)).filter((j) => j.fileName === archived)).toEqual([]);
    expect((await call("GET", `/api/v1/securities/${isin}`, { token })).status).toBe(404);
  });

  it("a run copies each new matching blob version once; ingestion writes it (job source blob); the customer's container is never changed", async () => {
    const [a, b, c] = [newIsin("GB"), newIsin("GB"), newIsin("GB")];
    await put("in/securities-1.csv", csv([a, "Alpha plc", "equity", "GBP"]));
    await put("in/readme.txt", "not a securities file\n");
    await put("in/positions-1.csv", "not matching either\n");
    await put("elsewhere/securities-9.csv", csv([c, "Outside prefix plc", "equity", "GBP"]));
    const src = await newSource({ status: "disabled" });

    const first = await runNow(src.id);
    expect(first).toMatchObject({
      status: "succeeded",
      trigger: "manual",
      listed: 3,
      matched: 1,
      copied: 1,
      skipped: 0,
      completedAt: iso,
    });
    expect(first.files).toEqual([
      {
        name: "in/securities-1.csv",
        etag: expect.any(String),
        inboundName: expect.stringMatching(new RegExp(`^${feedId}/[0-9a-f]{16}/in/securities-1\\.csv$`)),
      },
    ]);
    expect(first.error).toBeUndefined();
    // The job names the file as the customer's container does, not by its copy's version folder.
    const job = await finishedJob(feedId, "in/securities-1.csv");
    expect(job).toMatchObject({
      source: "blob",
      feedId,
      fileName: "in/securities-1.csv",
      dataType: "securities",
      status: "completed",
      counts: { received: 1, accepted: 1, rejected: 0 },
    });
    expect((await call("GET", `/api/v1/securities/${a}`, { token })).body.data).toMatchObject({
      isin: a,
      name: "Alpha plc",
    });
    expect((await call("GET", `/api/v1/securities/${c}`, { token })).status).toBe(404);

    const unchanged = await customerState();
    const second = await runNow(src.id);
    expect(second).toMatchObject({ status: "succeeded", listed: 3, matched: 1, copied: 0, skipped: 1, files: [] });
    expect(await jobsOf(feedId)).toHaveLength(1);

    // A new version of the same blob (a new ETag) is copied and ingested; the first version's copy is not overwritten.
    await put("in/securities-1.csv", csv([a, "Alpha plc", "equity", "GBP"], [b, "Beta plc", "bond", "GBP"]));
    const third = await runNow(src.id);
    expect(third).toMatchObject({ status: "succeeded", copied: 1, skipped: 0 });
    expect(third.files[0].etag).not.toBe(first.files[0].etag);
    expect(third.files[0].inboundName).not.toBe(first.files[0].inboundName);
    const newJob = await finishedJob(feedId, "in/securities-1.csv", job.id);
    expect(newJob).toMatchObject({ source: "blob", status: "completed", counts: { received: 2, accepted: 2 } });
    expect((await call("GET", `/api/v1/securities/${b}`, { token })).body.data).toMatchObject({
      isin: b,
      name: "Beta plc",
      assetClass: "bond",
    });

    // Nothing in the customer's container was written or deleted: the same blobs with the same ETags.
    const after = await customerState();
    expect(Object.keys(after).sort()).toEqual(Object.keys(unchanged).sort());
    for (const [name, etag] of Object.entries(after))
      expect(etag, name).toBe(name === "in/securities-1.csv" ? third.files[0].etag : unchanged[name]);

    const runs = await runsOf(src.id);
    expect(runs.map((r) => r.id)).toEqual([third.id, second.id, first.id]);
    const page = await call("GET", `${BASE}/${src.id}/runs?pageSize=2`, { token });
    expect(page.body.pagination).toMatchObject({
      page: 1,
      pageSize: 2,
      totalItems: 3,
      totalPages: 2,
      nextCursor: expect.any(String),
    });
    const rest = await call("GET", `${BASE}/${src.id}/runs?pageSize=2&cursor=${page.body.pagination.nextCursor}`, {
      token,
    });
    expect(rest.body.data.map((r: { id: string }) => r.id)).toEqual([first.id]);
  });

  it("a large blob is streamed across in blocks, byte for byte, with its metadata (here a name the feed does not take, so it waits in inbound)", async () => {
    const own = await newCustomerContainer();
    const big = Buffer.alloc(9 * 1024 * 1024 + 123);
    for (let i = 0; i < big.length; i++) big[i] = (i * 7919) % 251;
    await own.getBlockBlobClient("exports/big-1.bin").uploadData(big);
    const src = await newSource({
      containerUrl: `${emulator}/${own.containerName}`,
      prefix: "exports/",
      filePattern: "big-*.bin",
      status: "disabled",
    });
    const run = await runNow(src.id);
    expect(run).toMatchObject({ status: "succeeded", copied: 1 });
    const copy = blobs.getContainerClient("inbound").getBlockBlobClient(run.files[0].inboundName);
    const properties = await copy.getProperties();
    expect(properties.metadata).toEqual({
      source: "blob",
      blobsourceid: src.id,
      sourcename: "exports%2Fbig-1.bin",
      sourceetag: run.files[0].etag,
    });
    const blocks = await copy.getBlockList("committed");
    expect(blocks.committedBlocks?.length).toBeGreaterThan(1);
    expect((await copy.downloadToBuffer()).equals(big)).toBe(true);
  });

  it("the adapter turns a refused key (403) and a managed identity without a token into messages that name the fix and carry no secret", async () => {
    const wrongKey = Buffer.alloc(64, 7).toString("base64");
    const inbound = blobs.getContainerClient("inbound");
    const noIdentity = () => ({
      getToken: async () => {
        throw new CredentialUnavailableError("ManagedIdentityCredential: no identity endpoint");
      },
    });
    const refused = new BlobCustomerContainers(
      inbound,
      noIdentity,
      new StorageSharedKeyCredential("devstoreaccount1", wrongKey),
    );
    const drain = async (containers: BlobCustomerContainers, location: ContainerLocation) => {
      for await (const _ of containers.list(location, undefined)) void _;
    };
    const local = {
      url: `${emulator}/${customer.containerName}`,
      account: "devstoreaccount1",
      container: customer.containerName,
      emulator: true,
    };
    const error = await drain(refused, local).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(error?.name).toBe("CustomerContainerError");
    expect(error?.message).toMatch(
      /refused the service \(403 \w+\): grant the service's managed identity the Storage Blob Data Reader role/,
    );
    expect(error?.message).not.toContain(wrongKey);
    const azure = {
      url: "https://custacct01.blob.core.windows.net/drop",
      account: "custacct01",
      container: "drop",
      emulator: false,
    };
    await expect(drain(refused, azure)).rejects.toThrow(
      /managed identity could not get a token for the container https:\/\/custacct01\.blob\.core\.windows\.net\/drop$/,
    );
  });

  it("a copy repeated after a crash before it was recorded doubles nothing: the content's job id makes it a duplicate", async () => {
    const isin = newIsin("GB");
    const own = await newCustomerContainer();
    const content = csv([isin, "Crash plc", "equity", "EUR"]);
    await own.getBlockBlobClient("securities-crash.csv").upload(content, Buffer.byteLength(content));
    const src = await newSource({
      containerUrl: `${emulator}/${own.containerName}`,
      prefix: undefined,
      status: "disabled",
    });
    const first = await runNow(src.id);
    expect(first).toMatchObject({ status: "succeeded", copied: 1 });
    const fileName = "securities-crash.csv";
    const job = await finishedJob(feedId, fileName);
    expect(job.counts).toMatchObject({ accepted: 1 });

    // The crash: the version was copied but its record never written.
    const cosmos = new CosmosClient({
      endpoint: cosmosEndpoint(),
      key: COSMOS_KEY,
      connectionPolicy: { enableEndpointDiscovery: false },
    });
    const runsContainer = cosmos.database("investment-data").container("runs");
    const { resources } = await runsContainer.items
      .query<{ id: string }>(
        {
          query: "SELECT c.id FROM c WHERE c.ownerId = @o AND c.type = 'blob-source-version'",
          parameters: [{ name: "@o", value: src.id }],
        },
        { partitionKey: src.id },
      )
      .fetchAll();
    expect(resources).toHaveLength(1);
    await runsContainer.item(resources[0]!.id, src.id).delete();
    // Blob times have one-second resolution: a copy within the first job's second would pass for the same blob re-run.
    await new Promise((r) => setTimeout(r, 1100));

    const again = await runNow(src.id);
    expect(again).toMatchObject({ status: "succeeded", copied: 1 });
    expect(again.files[0].inboundName).toBe(first.files[0].inboundName);
    const jobs = await vi.waitFor(
      async () => {
        const all = (await jobsOf(feedId)).filter((j) => j.fileName === fileName && j.status !== "running");
        expect(all, "the second job of the same content").toHaveLength(2);
        return all;
      },
      { timeout: 20_000, interval: 100 },
    );
    const duplicate = jobs.find((j) => j.id !== job.id)!;
    expect(duplicate).toMatchObject({ status: "completed", duplicateOf: job.id, counts: { accepted: 0 } });
    expect((await runNow(src.id)).copied).toBe(0);
  });

  it("a run that fails is recorded failed with a clear error and no credential; the next run picks up what was missed", async () => {
    const missing = `customer-missing-${Date.now().toString(36)}`;
    const src = await newSource({ containerUrl: `${emulator}/${missing}`, prefix: undefined, status: "disabled" });
    const failed = await runNow(src.id);
    expect(failed).toMatchObject({ status: "failed", copied: 0, completedAt: iso });
    expect(failed.error).toMatch(/does not exist \(404/);
    expect(failed.error).not.toMatch(/AccountKey|Eby8vdM02x|sig=|Authorization/);

    const isin = newIsin("GB");
    const container = blobs.getContainerClient(missing);
    await container.create();
    const content = csv([isin, "Late plc", "fund", "USD"]);
    await container.getBlockBlobClient("securities-late.csv").upload(content, Buffer.byteLength(content));
    const ok = await runNow(src.id);
    expect(ok).toMatchObject({ status: "succeeded", copied: 1 });
    await finishedJob(feedId, ok.files[0].name as string);
    expect((await call("GET", `/api/v1/securities/${isin}`, { token })).body.data).toMatchObject({ name: "Late plc" });

    // The feed deleted after the source was set up: the run says so, and copies nothing.
    const feed = await call("POST", "/api/v1/settings/feeds", {
      token,
      body: { ...securitiesFeed, name: "short-lived" },
    });
    const orphan = await newSource({
      containerUrl: `${emulator}/${missing}`,
      prefix: undefined,
      status: "disabled",
      feedId: feed.body.data.id,
    });
    expect((await call("DELETE", `/api/v1/settings/feeds/${feed.body.data.id}`, { token })).status).toBe(204);
    expect(await runNow(orphan.id)).toMatchObject({
      status: "failed",
      copied: 0,
      error: `the feed '${feed.body.data.id}' no longer exists`,
    });
  });

  it("one blob that cannot be copied (archived) holds up none of the others: they are copied and ingested, the run fails naming it, and the next run tries it again", async () => {
    const container = await newCustomerContainer();
    const [a, b] = [newIsin("GB"), newIsin("GB")];
    const files: [string, string][] = [
      ["securities-1.csv", csv([a, "Before plc", "equity", "GBP"])],
      ["securities-2-archived.csv", csv([newIsin("GB"), "Cold plc", "equity", "GBP"])],
      ["securities-3.csv", csv([b, "After plc", "equity", "GBP"])],
    ];
    for (const [name, content] of files)
      await container.getBlockBlobClient(name).upload(content, Buffer.byteLength(content));
    // The listing is by name: the archived one comes between the other two.
    await container.getBlockBlobClient("securities-2-archived.csv").setAccessTier("Archive");
    const src = await newSource({ containerUrl: `${emulator}/${container.containerName}`, prefix: undefined });
    const run = await runNow(src.id);
    expect(run).toMatchObject({ status: "failed", listed: 3, matched: 3, copied: 2 });
    expect(run.files.map((f: { name: string }) => f.name).sort()).toEqual(["securities-1.csv", "securities-3.csv"]);
    expect(run.error).toMatch(
      /^1 blob could not be copied \(the first, "securities-2-archived.csv": .*409.*\); the others were, and the next run tries it again$/,
    );
    await finishedJob(feedId, "securities-3.csv");
    expect((await call("GET", `/api/v1/securities/${b}`, { token })).body.data).toMatchObject({ name: "After plc" });
    // Not recorded as copied: the next run tries it again (and copies the others no second time).
    expect(await runNow(src.id)).toMatchObject({ status: "failed", copied: 0, skipped: 2 });
  });

  it("the scheduler runs a due source once even when two timers claim the same due time, advances nextRunAt, and leaves disabled sources alone", async () => {
    const own = await newCustomerContainer();
    const isin = newIsin("GB");
    const content = csv([isin, "Scheduled plc", "equity", "CHF"]);
    await own.getBlockBlobClient("securities-timer.csv").upload(content, Buffer.byteLength(content));
    const due = await newSource({
      containerUrl: `${emulator}/${own.containerName}`,
      prefix: undefined,
      schedule: { every: "15m" },
    });
    const off = await newSource({
      containerUrl: `${emulator}/${own.containerName}`,
      prefix: undefined,
      schedule: { every: "15m" },
    });
    expect(
      (await call("PATCH", `${BASE}/${off.id}`, { token, body: { status: "disabled" } })).body.data.nextRunAt,
    ).toBeNull();

    // Two instances whose clocks are past the due time, firing at once.
    const dueAt = Date.parse(due.nextRunAt);
    const env = {
      COSMOS_ENDPOINT: cosmosEndpoint(),
      COSMOS_KEY,
      COSMOS_ENDPOINT_DISCOVERY: "false",
      STORAGE_CONNECTION_STRING: storageConnectionString(),
      JWT_SIGNING_KEY: TEST_JWT_KEY,
      WEBHOOK_SECRET_KEY: TEST_WEBHOOK_KEY,
      LOG_LEVEL: "error",
    };
    const instance = (): Composition => new Composition(parseConfig(env), { now: () => new Date(dueAt + 5_000) });
    const [one, two] = await Promise.all([
      instance().blobSources.scheduleBlobSources().execute(),
      instance().blobSources.scheduleBlobSources().execute(),
    ]);
    const claimed = [...one, ...two].filter((r) => r.blobSourceId === due.id);
    expect(claimed).toHaveLength(1);
    expect([...one, ...two].filter((r) => r.blobSourceId === off.id)).toEqual([]);
    // Not due any more: a third firing claims nothing for it.
    expect(
      (await instance().blobSources.scheduleBlobSources().execute()).filter((r) => r.blobSourceId === due.id),
    ).toEqual([]);

    const run = await vi.waitFor(
      async () => {
        const finished = (await runsOf(due.id)).find((r) => r.status !== "running");
        assert.isDefined(finished, "the scheduled run");
        return finished;
      },
      { timeout: 20_000, interval: 100 },
    );
    expect(run).toMatchObject({
      trigger: "schedule",
      scheduledFor: new Date(dueAt).toISOString(),
      status: "succeeded",
      copied: 1,
    });
    expect(await runsOf(due.id)).toHaveLength(1);
    expect((await call("GET", `${BASE}/${due.id}`, { token })).body.data.nextRunAt).toBe(
      new Date(dueAt + 15 * 60_000).toISOString(),
    );
    expect(await runsOf(off.id)).toEqual([]);
    await finishedJob(feedId, run.files[0].name as string);
    expect((await call("GET", `/api/v1/securities/${isin}`, { token })).body.data).toMatchObject({
      name: "Scheduled plc",
    });
  });

  it("the runtime's blob-sources-schedule timer runs a source whose nextRunAt has come, and not a disabled one", async () => {
    const own = await newCustomerContainer();
    const isin = newIsin("GB");
    const content = csv([isin, "Timer plc", "etf", "NOK"]);
    await own.getBlockBlobClient("securities-tick.csv").upload(content, Buffer.byteLength(content));
    const on = await newSource({
      containerUrl: `${emulator}/${own.containerName}`,
      prefix: undefined,
      schedule: { every: "1d", at: "03:00" },
    });
    const off = await newSource({
      containerUrl: `${emulator}/${own.containerName}`,
      prefix: undefined,
      schedule: { every: "1d", at: "03:00" },
      status: "disabled",
    });
    // Make both due now, as if the service had been waiting for 03:00 (the disabled one too, to show its status is what keeps it off).
    const settings = new CosmosClient({
      endpoint: cosmosEndpoint(),
      key: COSMOS_KEY,
      connectionPolicy: { enableEndpointDiscovery: false },
    })
      .database("investment-data")
      .container("settings");
    const past = new Date(Date.now() - 60_000).toISOString();
    for (const id of [on.id, off.id]) {
      const { resource } = await settings.item(id, "blob-source").read();
      await settings.item(id, "blob-source").replace({ ...resource, nextRunAt: past });
    }
    const run = await vi.waitFor(
      async () => {
        const finished = (await runsOf(on.id)).find((r) => r.status !== "running");
        assert.isDefined(finished, "the timer's run");
        return finished;
      },
      { timeout: 20_000, interval: 100 },
    );
    expect(run).toMatchObject({ trigger: "schedule", scheduledFor: past, status: "succeeded", copied: 1 });
    const next = (await call("GET", `${BASE}/${on.id}`, { token })).body.data.nextRunAt as string;
    expect(next > new Date().toISOString() && next.endsWith("T03:00:00.000Z")).toBe(true);
    await finishedJob(feedId, run.files[0].name as string);
    expect((await call("GET", `/api/v1/securities/${isin}`, { token })).body.data).toMatchObject({
      name: "Timer plc",
      assetClass: "etf",
    });
    await new Promise((r) => setTimeout(r, 2500)); // waits another tick or two to show that no second run starts
    expect(await runsOf(on.id)).toHaveLength(1);
    expect(await runsOf(off.id)).toEqual([]);
  });

  it("runs whose message or instance was lost are sent again by the scheduler, and given up after three lost attempts", async () => {
    const own = await newCustomerContainer();
    const isin = newIsin("GB");
    const content = csv([isin, "Recovered plc", "equity", "SEK"]);
    await own.getBlockBlobClient("securities-lost.csv").upload(content, Buffer.byteLength(content));
    const src = await newSource({
      containerUrl: `${emulator}/${own.containerName}`,
      prefix: undefined,
      status: "disabled",
    });
    const cosmos = new CosmosClient({
      endpoint: cosmosEndpoint(),
      key: COSMOS_KEY,
      connectionPolicy: { enableEndpointDiscovery: false },
    });
    const runs = cosmos.database("investment-data").container("runs");
    const tenMinutesAgo = new Date(Date.now() - 10 * 60_000).toISOString();
    const stored = (id: string, fields: Record<string, unknown>) => ({
      id,
      ownerId: src.id,
      type: "blob-source-run",
      sortKey: `${tenMinutesAgo}|${id}`,
      blobSourceId: src.id,
      trigger: "manual",
      scheduledFor: tenMinutesAgo,
      status: "running",
      listed: 0,
      matched: 0,
      copied: 0,
      skipped: 0,
      files: [],
      startedAt: tenMinutesAgo,
      ...fields,
    });
    // Claimed but its message never sent; taken once by an instance that died; lost three times already.
    await runs.items.create(stored("bsr_unsent", { attempts: 0 }));
    await runs.items.create(
      stored("bsr_died", { attempts: 1, leaseUntil: new Date(Date.now() - 60_000).toISOString() }),
    );
    await runs.items.create(
      stored("bsr_hopeless", { attempts: 3, leaseUntil: new Date(Date.now() - 60_000).toISOString() }),
    );

    const env = {
      COSMOS_ENDPOINT: cosmosEndpoint(),
      COSMOS_KEY,
      COSMOS_ENDPOINT_DISCOVERY: "false",
      STORAGE_CONNECTION_STRING: storageConnectionString(),
      JWT_SIGNING_KEY: TEST_JWT_KEY,
      WEBHOOK_SECRET_KEY: TEST_WEBHOOK_KEY,
      LOG_LEVEL: "error",
    };
    await new Composition(parseConfig(env)).blobSources.scheduleBlobSources().execute();
    const finished = await vi.waitFor(
      async () => {
        const all = await runsOf(src.id);
        expect(all, "the recovered runs").toHaveLength(3);
        expect(
          all.every((r) => r.status !== "running"),
          "the recovered runs finished",
        ).toBe(true);
        return all;
      },
      { timeout: 20_000, interval: 100 },
    );
    const byId = new Map(finished.map((r) => [r.id, r]));
    expect(byId.get("bsr_hopeless")).toMatchObject({
      status: "failed",
      error: expect.stringMatching(/stopped 3 times/),
    });
    // Both recovered runs finished; the version was copied once between them.
    expect([byId.get("bsr_unsent")?.status, byId.get("bsr_died")?.status]).toEqual(["succeeded", "succeeded"]);
    expect((byId.get("bsr_unsent")?.copied ?? 0) + (byId.get("bsr_died")?.copied ?? 0)).toBe(1);
    for (const run of finished) expect(run).not.toHaveProperty("leaseUntil");
    await expect
      .poll(async () => (await call("GET", `/api/v1/securities/${isin}`, { token })).status, {
        timeout: 20_000,
        interval: 100,
      })
      .toBe(200);
  });

  it("a positions blob whose new version drops a position: the job counts it removed and the portfolio-date is revalued", async () => {
    const D = "2016-09-30";
    const portfolio = await createPortfolio(token, { baseCurrency: "EUR" });
    const records = [securityRecord(), securityRecord(), securityRecord()];
    await createSecurities(token, records);
    await imported(token, "prices", { prices: records.map((r, i) => price(r.isin, D, 10 * (i + 1))) });
    const feed = await call("POST", "/api/v1/settings/feeds", {
      token,
      body: {
        name: "custodian positions from the customer's container",
        provider: "Customer",
        dataType: "positions",
        format: "csv",
        filePattern: "positions-*.csv",
        mapping: { portfolioCode: "Account", isin: "ISIN", date: "Date", quantity: "Units" },
        status: "live",
      },
    });
    expect(feed.status, feed.text).toBe(201);
    const container = await newCustomerContainer();
    const src = await newSource({
      containerUrl: `${emulator}/${container.containerName}`,
      filePattern: "positions-*.csv",
      feedId: feed.body.data.id,
      status: "disabled",
    });
    const file = (n: number): string =>
      `Account,ISIN,Date,Units\n${records
        .slice(0, n)
        .map((r) => `${portfolio.code},${r.isin},${D},1`)
        .join("\n")}\n`;
    const drop = async (n: number): Promise<Record<string, any>> => {
      const content = file(n);
      await container.getBlockBlobClient("in/positions-today.csv").upload(content, Buffer.byteLength(content));
      const run = await runNow(src.id);
      expect(run).toMatchObject({ status: "succeeded", copied: 1 });
      return vi.waitFor(
        async () => {
          const done = (await jobsOf(feed.body.data.id)).find((j) => j.status !== "running" && j.counts.received === n);
          assert.isDefined(done, `the job of the ${n}-row version`);
          return done;
        },
        { timeout: 20_000, interval: 100 },
      );
    };
    expect(await drop(3)).toMatchObject({ source: "blob", status: "completed", counts: { accepted: 3, removed: 0 } });
    await whenValued(token, portfolio.id);
    expect((await holdingsOf(token, portfolio.id)).totalValue).toBe(60);
    expect(await drop(2)).toMatchObject({ source: "blob", status: "completed", counts: { accepted: 2, removed: 1 } });
    await whenValued(token, portfolio.id);
    const view = await holdingsOf(token, portfolio.id);
    expect(view.totalValue).toBe(30);
    expect(view.holdings).toHaveLength(2);
  });
});
