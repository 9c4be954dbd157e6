import { BlobServiceClient } from "@azure/storage-blob";
import SftpClient from "ssh2-sftp-client";
import { afterAll, assert, beforeAll, describe, expect, it, vi } from "vitest";
import { freePort } from "../local/launch";
import { BlobFileStore } from "../shared/adapters/blob/blob-file-store";
import { adminToken, call } from "./http";
import { newIsin } from "./investment-fixtures";
import { runtimeEnv, startRuntime, tempDir, type Runtime } from "./runtime";

const FEEDS = "/api/v1/settings/feeds";

const securitiesFeed = {
  name: "securities master (resume)",
  provider: "Test provider",
  dataType: "securities",
  format: "csv",
  filePattern: "securities-*.csv",
  mapping: { isin: "ISIN", name: "Name", assetClass: "Class", currency: "Ccy" },
  status: "live",
};

describe("Feeds › a paused feed's files wait in inbound and are ingested when it resumes", () => {
  let runtime: Runtime;
  let data: ReturnType<typeof tempDir>;
  let token: string;
  let blobs: BlobServiceClient;
  const sftp = new SftpClient();

  beforeAll(async () => {
    data = tempDir("ids-resume-");
    const port = String(await freePort());
    runtime = await startRuntime(await runtimeEnv(data.path, { SFTP_PORT: port, LOCAL_SFTP_PORT: port }));
    token = await adminToken(runtime.baseUrl);
    blobs = BlobServiceClient.fromConnectionString(runtime.env.STORAGE_CONNECTION_STRING ?? "");
  }, 60_000);
  afterAll(async () => {
    await sftp.end().catch(() => undefined);
    await runtime?.stop();
    data?.remove();
  }, 60_000);

  const api = (method: string, path: string, body?: unknown) =>
    call(method, path, { token, base: runtime.baseUrl, ...(body !== undefined ? { body } : {}) });
  const jobsOf = async (feedId: string): Promise<Record<string, any>[]> => {
    const reply = await api("GET", `/api/v1/jobs?feedId=${feedId}&pageSize=100`);
    expect(reply.status, reply.text).toBe(200);
    return reply.body.data;
  };
  const exists = (container: string, name: string): Promise<boolean> =>
    blobs.getContainerClient(container).getBlobClient(name).exists();
  /** The blob host's receipt of a blob version: it has run the ingestion function on this ETag. */
  const handled = async (name: string): Promise<boolean> => {
    const unquoted = (etag: string | undefined): string => (etag ?? "").replace(/"/g, "");
    const etag = unquoted((await blobs.getContainerClient("inbound").getBlobClient(name).getProperties()).etag);
    const receipt = `blobreceipts/local/feed-files-ingest/inbound/${name}`;
    for await (const blob of blobs
      .getContainerClient("azure-webjobs-hosts")
      .listBlobsFlat({ prefix: receipt, includeMetadata: true })) {
      if (blob.name === receipt)
        return unquoted(blob.metadata?.["etag"]) === etag && blob.metadata?.["status"] === "done";
    }
    return false;
  };

  it("a file dropped over SFTP while paused waits (no job, still in inbound); PATCH live ingests it without a new upload", async () => {
    const created = await api("POST", FEEDS, securitiesFeed);
    expect(created.status, created.text).toBe(201);
    const { id: feedId, sftp: login } = created.body.data;
    const paused = await api("PATCH", `${FEEDS}/${feedId}`, { status: "paused" });
    expect(paused.status, paused.text).toBe(200);

    const [a, b] = [newIsin("GB"), newIsin("GB")];
    const file = `ISIN,Name,Class,Ccy\n${a},Alpha Resume plc,equity,GBP\n${b},Beta Resume plc,bond,GBP\n`;
    await sftp.connect({
      host: login.host,
      port: login.port,
      username: login.username,
      password: login.password,
      retries: 0,
      readyTimeout: 10_000,
    });
    await sftp.put(Buffer.from(file), "/securities-2024-12-31.csv");
    await sftp.end();
    const name = `${feedId}/securities-2024-12-31.csv`;

    // The ingestion ran on the file and left it: the feed is paused.
    await expect
      .poll(() => handled(name), {
        message: "the blob host to see the paused feed's file",
        timeout: 30_000,
        interval: 100,
      })
      .toBe(true);
    expect(await jobsOf(feedId)).toEqual([]);
    expect(await exists("inbound", name)).toBe(true);
    expect((await api("GET", `/api/v1/securities/${a}`)).status).toBe(404);

    const live = await api("PATCH", `${FEEDS}/${feedId}`, { status: "live" });
    expect(live.status, live.text).toBe(200);
    expect(live.body.data.status).toBe("live");

    const job = await vi.waitFor(
      async () => {
        const done = (await jobsOf(feedId)).find((j) => j.status !== "running");
        assert.isDefined(done, "the resumed file's job");
        expect(await exists("inbound", name), "the resumed file left inbound").toBe(false);
        return done;
      },
      { timeout: 30_000, interval: 100 },
    );
    expect(job).toMatchObject({
      source: "sftp",
      dataType: "securities",
      feedId,
      fileName: "securities-2024-12-31.csv",
      status: "completed",
      counts: { received: 2, accepted: 2, rejected: 0 },
      errors: [],
    });
    expect((await api("GET", `/api/v1/securities/${a}`)).body.data).toMatchObject({
      isin: a,
      name: "Alpha Resume plc",
      assetClass: "equity",
      currency: "GBP",
    });
    expect((await api("GET", `/api/v1/securities/${b}`)).body.data).toMatchObject({
      isin: b,
      name: "Beta Resume plc",
      assetClass: "bond",
    });
    expect(await exists("archive", name)).toBe(true);
    // Handed over as it was: the file itself was not touched to announce it (in Azure that raises nothing).
    const archived = (await blobs.getContainerClient("archive").getBlobClient(name).getProperties()).metadata ?? {};
    expect(archived).toEqual({ feedid: feedId, source: "sftp" });
  }, 90_000);

  it("a metadata change raises nothing, as in Azure: a paused feed's waiting file re-stamped in inbound is not run again", async () => {
    const created = await api("POST", FEEDS, { ...securitiesFeed, status: "paused" });
    expect(created.status, created.text).toBe(201);
    const feedId = created.body.data.id as string;
    const name = `${feedId}/securities-2024-11-30.csv`;
    const blob = blobs.getContainerClient("inbound").getBlockBlobClient(name);
    const file = `ISIN,Name,Class,Ccy\n${newIsin("GB")},Gamma Stamp plc,equity,GBP\n`;
    await blob.upload(file, file.length);
    await expect
      .poll(() => handled(name), { message: "the blob host to see the paused feed's file", timeout: 30_000 })
      .toBe(true);
    // Resumed without the service (a person edits the stored feed): only an explicit hand-over would take the file.
    await blob.setMetadata({ resumedAt: "2026-11-24T22:00:00.000Z" });
    await new Promise((r) => setTimeout(r, 3_000)); // waits to show that the stamp runs nothing
    expect(await handled(name), "a new ETag with no event").toBe(false);
    expect(await exists("inbound", name)).toBe(true);
    expect(await jobsOf(feedId)).toEqual([]);
  }, 60_000);

  it("only leaving paused hands waiting files over: a PATCH that keeps the feed paused ingests nothing; a file ingestion ignores stays ignored after the resume", async () => {
    const created = await api("POST", FEEDS, { ...securitiesFeed, status: "paused", filePattern: "other-*.csv" });
    const feedId = created.body.data.id as string;
    const inbound = blobs.getContainerClient("inbound");
    // A file the pattern matches waits; one it does not match waits for ever, resumed or not.
    const waiting = `${feedId}/other-1.csv`;
    const stray = `${feedId}/stray.csv`;
    const file = `ISIN,Name,Class,Ccy\n${newIsin("GB")},Delta Wait plc,equity,GBP\n`;
    await inbound.getBlockBlobClient(waiting).upload(file, file.length);
    await inbound.getBlockBlobClient(stray).upload("x", 1);
    for (const name of [waiting, stray])
      await expect
        .poll(() => handled(name), { message: `the blob host to see ${name}`, timeout: 30_000, interval: 100 })
        .toBe(true);
    expect((await api("PATCH", `${FEEDS}/${feedId}`, { name: "renamed while paused" })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 2_000)); // waits to show that nothing was handed over
    expect(await exists("inbound", waiting)).toBe(true);
    expect(await jobsOf(feedId)).toEqual([]);

    expect((await api("PATCH", `${FEEDS}/${feedId}`, { status: "testing" })).status).toBe(200);
    const job = await vi.waitFor(
      async () => {
        const done = (await jobsOf(feedId)).find((j) => j.status !== "running");
        assert.isDefined(done, "the waiting file's job");
        return done;
      },
      { timeout: 30_000, interval: 100 },
    );
    expect(job).toMatchObject({ fileName: "other-1.csv", status: "completed", counts: { received: 1 } });
    await expect.poll(() => exists("inbound", waiting), { timeout: 10_000 }).toBe(false);
    await new Promise((r) => setTimeout(r, 1_000));
    expect(await exists("inbound", stray)).toBe(true);
    expect(await jobsOf(feedId)).toHaveLength(1);
  }, 90_000);

  it("a login's home folder (Azure SFTP) is an empty blob marked hdi_isfolder, made once", async () => {
    const store = BlobFileStore.fromConnectionString(runtime.env.STORAGE_CONNECTION_STRING ?? "");
    await store.createFolder("quarantine", "fd_home");
    const folder = blobs.getContainerClient("quarantine").getBlobClient("fd_home");
    const first = await folder.getProperties();
    expect({ size: first.contentLength, metadata: first.metadata }).toEqual({
      size: 0,
      metadata: { hdi_isfolder: "true" },
    });
    await store.createFolder("quarantine", "fd_home");
    expect((await folder.getProperties()).etag).toBe(first.etag);
  });
});
