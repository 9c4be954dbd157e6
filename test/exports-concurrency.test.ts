import { readdir, readFile } from "node:fs/promises";
import { createServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import { CosmosClient } from "@azure/cosmos";
import { BlobServiceClient, type ContainerClient } from "@azure/storage-blob";
import { parse } from "csv-parse/sync";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { adminToken, call, cosmosEndpoint, storageConnectionString, useOwnRuntime } from "./http";
import { COSMOS_KEY } from "./investment-fixtures";
import { startSftpTarget, type SftpOperation, type SftpTarget } from "./sftp-target";

// The exports timer every second, failed (or waiting) attempts retried after 1 s, leases of 6 s (renewed every 2 s).
useOwnRuntime({
  EXPORTS_SCHEDULE: "*/1 * * * * *",
  EXPORTS_RETRY_DELAY_SECONDS: "1",
  EXPORTS_RUN_LEASE_SECONDS: "6",
  EXPORTS_SFTP_CONNECT_TIMEOUT_SECONDS: "3",
});

const BASE = "/api/v1/settings/exports";
const PASSWORD = "concurrent-Test-pa55word";
type Run = {
  id: string;
  status: string;
  attempts: number;
  error?: string;
  fileName: string;
  rows: number;
  bytes: number;
};

/** Who wrote what, in order, in one directory: each upload is open-write of its temporary name … rename over the final name. */
function uploadsIn(
  operations: readonly SftpOperation[],
  dir: string,
): { part: string; opened: number; renamed: number }[] {
  const uploads = new Map<string, { part: string; opened: number; renamed: number }>();
  operations.forEach((o, i) => {
    if (!o.path.startsWith(`${dir}/.`)) return;
    if (o.op === "open-write") uploads.set(o.path, { part: o.path, opened: i, renamed: -1 });
    if (o.op === "rename") uploads.get(o.path)!.renamed = i;
  });
  return [...uploads.values()];
}

/** Several runs, exports and DELETE/PATCH at the same time as a run. */
describe("export runs side by side", () => {
  let token: string;
  let slow: SftpTarget;
  let container: ContainerClient;
  const sftp = (path: string, port = slow.port) => ({
    type: "sftp",
    host: "127.0.0.1",
    port,
    username: "ids",
    password: PASSWORD,
    path,
  });
  const create = async (body: Record<string, unknown>): Promise<string> => {
    const reply = await call("POST", BASE, {
      token,
      body: {
        name: "side by side",
        dataType: "securities",
        format: "csv",
        schedule: { frequency: "daily", time: "03:00" },
        ...body,
      },
    });
    expect(reply.status, reply.text).toBe(201);
    return reply.body.data.id;
  };
  const runNow = async (id: string): Promise<Run> => {
    for (;;) {
      const reply = await call("POST", `${BASE}/${id}/run`, { token });
      // Two runs of one export asked for in the same millisecond are one run: the second is a retryable 409.
      if (reply.status === 409) continue;
      expect(reply.status, reply.text).toBe(202);
      return reply.body.data;
    }
  };
  const runsOf = async (id: string): Promise<Run[]> => (await call("GET", `${BASE}/${id}/runs`, { token })).body.data;
  const finished = (id: string, count = 1, seconds = 40): Promise<Run[]> =>
    vi.waitFor(
      async () => {
        const runs = await runsOf(id);
        expect(runs.length, `the runs of ${id}`).toBeGreaterThanOrEqual(count);
        expect(
          runs.every((r) => r.status !== "running" && r.status !== "retrying"),
          `the runs of ${id} finished`,
        ).toBe(true);
        return runs;
      },
      { timeout: seconds * 1000, interval: 100 },
    );
  const storedRuns = async (exportId: string): Promise<Run[]> => {
    const runs = new CosmosClient({
      endpoint: cosmosEndpoint(),
      key: COSMOS_KEY,
      connectionPolicy: { enableEndpointDiscovery: false },
    })
      .database("investment-data")
      .container("runs");
    const { resources } = await runs.items
      .query<Run>(
        {
          query: "SELECT * FROM c WHERE c.ownerId = @e AND c.type = 'export-run'",
          parameters: [{ name: "@e", value: exportId }],
        },
        { partitionKey: exportId },
      )
      .fetchAll();
    return resources;
  };
  const definitionItem = (id: string) =>
    new CosmosClient({
      endpoint: cosmosEndpoint(),
      key: COSMOS_KEY,
      connectionPolicy: { enableEndpointDiscovery: false },
    })
      .database("investment-data")
      .container("settings")
      .item(id, "export");

  beforeAll(async () => {
    token = await adminToken();
    // A slow server (each write takes 1.5 s): two uploads that are not kept apart overlap.
    slow = await startSftpTarget({ users: [{ username: "ids", password: PASSWORD }], writeDelayMs: 1500 });
    container = BlobServiceClient.fromConnectionString(storageConnectionString()).getContainerClient(
      `customer-${Date.now().toString(36)}`,
    );
    await container.create();
    const isin = "XS0000000001";
    await call("POST", "/api/v1/import/securities", {
      token,
      body: { securities: [{ isin, name: "Side by side plc", assetClass: "equity", currency: "EUR" }] },
    });
  });
  afterAll(async () => {
    await slow?.close();
  });

  it("two runs of one export at once: each attempt writes its own temporary file, one at a time, and both succeed on their first attempt", async () => {
    const id = await create({ destination: sftp("/twice"), fileName: "securities.csv" });
    const [a, b] = await Promise.all([runNow(id), runNow(id)]);
    expect(a.id).not.toBe(b.id);
    const runs = await finished(id, 2);
    expect(runs.map((r) => [r.status, r.attempts, r.error])).toEqual([
      ["succeeded", 1, undefined],
      ["succeeded", 1, undefined],
    ]);
    expect(await readdir(join(slow.root, "twice"))).toEqual(["securities.csv"]);
    const [header, ...rows] = parse(await readFile(join(slow.root, "twice", "securities.csv")));
    expect(header).toContain("isin");
    expect(rows.length).toBe(runs[0]!.rows);
    const uploads = uploadsIn(slow.operations, "/twice");
    expect(uploads).toHaveLength(2);
    expect(uploads[0]!.part).not.toBe(uploads[1]!.part);
    // One writer at a time: the second upload opened its file only after the first was renamed into place.
    expect(uploads[1]!.opened).toBeGreaterThan(uploads[0]!.renamed);
  }, 60_000);

  it("two exports to one path and file name at once: one writer at a time, and the delivered file is one export's, whole", async () => {
    const ids = await Promise.all(
      [1, 2].map(() => create({ format: "json", destination: sftp("/shared"), fileName: "report.json" })),
    );
    const blobIds = await Promise.all(
      [1, 2].map(() =>
        create({
          format: "json",
          destination: { type: "blob", containerUrl: container.url, prefix: "shared/" },
          fileName: "report.json",
        }),
      ),
    );
    await Promise.all([...ids, ...blobIds].map(runNow));
    for (const id of [...ids, ...blobIds])
      expect((await finished(id))[0]).toMatchObject({ status: "succeeded", attempts: 1 });
    expect(await readdir(join(slow.root, "shared"))).toEqual(["report.json"]);
    const delivered = JSON.parse(await readFile(join(slow.root, "shared", "report.json"), "utf8"));
    expect(ids).toContain(delivered.exportId);
    expect(delivered.count).toBe(delivered.data.length);
    const [first, second] = uploadsIn(slow.operations, "/shared");
    expect(second!.opened).toBeGreaterThan(first!.renamed);
    const blob = JSON.parse((await container.getBlobClient("shared/report.json").downloadToBuffer()).toString("utf8"));
    expect(blobIds).toContain(blob.exportId);
    expect(blob.count).toBe(blob.data.length);
  }, 60_000);

  it("a PATCH while a run waits for its next attempt: that attempt works from the new definition whole (content, file name and destination agree)", async () => {
    const sockets: Socket[] = [];
    const silent: Server = createServer((s) => {
      sockets.push(s);
      s.on("error", () => undefined);
    });
    const silentPort = await new Promise<number>((resolve) =>
      silent.listen(0, "127.0.0.1", () => resolve((silent.address() as { port: number }).port)),
    );
    try {
      const id = await create({
        format: "csv",
        destination: sftp("/patched", silentPort),
        fileName: "report.{format}",
      });
      const run = await runNow(id);
      expect(run.fileName).toBe("report.csv");
      // The first attempt hangs in the handshake of a server that never answers; meanwhile the export becomes JSON to the real server.
      await expect.poll(() => sockets.length, { timeout: 20_000, interval: 100 }).toBeGreaterThan(0); // the first attempt's connection
      const patched = await call("PATCH", `${BASE}/${id}`, {
        token,
        body: { format: "json", destination: { port: slow.port } },
      });
      expect(patched.status, patched.text).toBe(200);
      for (const s of sockets) s.destroy();
      const [done] = await finished(id);
      expect(done).toMatchObject({ id: run.id, status: "succeeded", attempts: 2, fileName: "report.json" });
      expect(await readdir(join(slow.root, "patched"))).toEqual(["report.json"]);
      const file = JSON.parse(await readFile(join(slow.root, "patched", "report.json"), "utf8"));
      expect(file).toMatchObject({ exportId: id, dataType: "securities", count: done!.rows });
    } finally {
      silent.close();
    }
  }, 60_000);

  it("a file name saved before the rendered-name rule (renders . or ..) fails its run; nothing is written above the prefix and no directory is touched", async () => {
    const blobId = await create({
      destination: { type: "blob", containerUrl: container.url, prefix: "deep/ids/" },
      fileName: "securities.csv",
    });
    const sftpId = await create({ destination: sftp("/named"), fileName: "securities.csv" });
    for (const [id, fileName] of [
      [blobId, "{date:.}{time:.}"],
      [sftpId, "{date:.}"],
    ] as const) {
      const item = definitionItem(id);
      const { resource } = await item.read();
      await item.replace({ ...resource, fileName });
    }
    await Promise.all([runNow(blobId), runNow(sftpId)]);
    const [blobRun] = await finished(blobId);
    expect(blobRun).toMatchObject({
      status: "failed",
      attempts: 3,
      fileName: "..",
      error: 'the file name renders as "..", which is "..", a directory, not a file; nothing was written',
    });
    const [sftpRun] = await finished(sftpId);
    expect(sftpRun).toMatchObject({
      status: "failed",
      fileName: ".",
      error: 'the file name renders as ".", which is ".", a directory, not a file; nothing was written',
    });
    const names: string[] = [];
    for await (const b of container.listBlobsFlat({ prefix: "deep/" })) names.push(b.name);
    expect(names).toEqual([]);
    expect(slow.operations.filter((o) => o.path.startsWith("/named") || o.op === "rmdir")).toEqual([]);
  }, 60_000);

  it("DELETE while a run uploads: the run is cancelled and says so, nothing is delivered, and its record is kept (no longer listed)", async () => {
    const id = await create({ destination: sftp("/deleted"), fileName: "securities.csv" });
    const run = await runNow(id);
    await expect
      .poll(
        () => slow.operations.some((o) => o.op === "open-write" && o.path.startsWith("/deleted/.securities.csv.")),
        { timeout: 20_000, interval: 100 },
      )
      .toBe(true); // the upload
    expect((await call("DELETE", `${BASE}/${id}`, { token })).status).toBe(204);
    expect((await call("GET", `${BASE}/${id}/runs`, { token })).status).toBe(404);
    const [stored] = await vi.waitFor(
      async () => {
        const runs = await storedRuns(id);
        expect(runs, "the cancelled run").toHaveLength(1);
        expect(runs[0]?.status, "the cancelled run").not.toBe("running");
        return runs;
      },
      { timeout: 20_000, interval: 100 },
    );
    expect(stored).toMatchObject({
      id: run.id,
      status: "failed",
      attempts: 1,
      rows: 0,
      bytes: 0,
      error: "cancelled: the export was deleted during the run; no file was delivered",
    });
    // The cancelled attempt removed its temporary file; no rename ever happened.
    await expect.poll(() => readdir(join(slow.root, "deleted")), { timeout: 10_000, interval: 100 }).toEqual([]); // the temporary file removed
    expect(slow.operations.filter((o) => o.op === "rename" && o.path.startsWith("/deleted/"))).toEqual([]);
  }, 60_000);
});
