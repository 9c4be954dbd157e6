import { CosmosClient } from "@azure/cosmos";
import { BlobServiceClient } from "@azure/storage-blob";
import SftpClient from "ssh2-sftp-client";
import { afterAll, assert, describe, expect, it, vi } from "vitest";
import { freePort } from "../local/launch";
import type { EventEnvelope } from "../shared/domain/events";
import { adminToken, call } from "./http";
import { COSMOS_KEY, newIsin } from "./investment-fixtures";
import { childrenGone } from "./children-gone";
import { withDiagnostics } from "./with-diagnostics";
import { runtimeEnv, startRuntime, tempDir, type Runtime } from "./runtime";

const SECURITIES = 150;
const DATES = 400;
const ROWS = SECURITIES * DATES; // 60,000: six parts of 10,000

const dateAfter = (days: number): string =>
  new Date(Date.UTC(2021, 0, 1) + days * 86_400_000).toISOString().slice(0, 10);

interface JobBody {
  id: string;
  status: string;
  fileName: string | null;
  counts: { received: number; accepted: number; rejected: number };
}

/**
 * Exactly once across a crash: a live feed's file of 60,000 prices dropped over SFTP, the runtime
 * killed (`kill -9`) while the file's job is running with some of its parts written, then started
 * again on the same data folder: the file is ingested again under the same job, which ends
 * `completed` (one refresh_job.completed), every row stored once, the file archived.
 */
describe("file ingestion across a crash", () => {
  const data = tempDir("ids-ingest-crash-");
  const runtimes: Runtime[] = [];
  afterAll(async () => {
    await Promise.all(runtimes.map((r) => r.stop()));
    data.remove();
  }, 60_000);

  it("a kill -9 mid-file: after the restart the job completes, each row is stored once, the file is archived", async () => {
    const port = String(await freePort());
    const env = await runtimeEnv(data.path, { SFTP_PORT: port, LOCAL_SFTP_PORT: port });
    const first = await startRuntime(env);
    runtimes.push(first);
    let token = await adminToken(first.baseUrl);

    const isins = Array.from({ length: SECURITIES }, () => newIsin());
    const securities = await call("POST", "/api/v1/import/securities", {
      base: first.baseUrl,
      token,
      body: {
        securities: isins.map((isin, i) => ({ isin, name: `Crash test ${i}`, assetClass: "equity", currency: "EUR" })),
      },
    });
    expect(securities.status, securities.text).toBe(200);
    const created = await call("POST", "/api/v1/settings/feeds", {
      base: first.baseUrl,
      token,
      body: {
        name: "crash-test prices",
        provider: "Test provider",
        dataType: "prices",
        format: "csv",
        filePattern: "prices-*.csv",
        mapping: {
          isin: "ISIN",
          date: "Date",
          price: "Close",
          currency: "Ccy",
          type: { value: "close" },
          source: { value: "crash-test" },
        },
        status: "live",
      },
    });
    expect(created.status, created.text).toBe(201);
    const feed = created.body.data as {
      id: string;
      sftp: { host: string; port: number; username: string; password: string };
    };

    // Securities cycle fastest, a date per cycle; a gentle walk (no price jumps).
    const lines = ["ISIN,Date,Close,Ccy"];
    for (let i = 0; i < ROWS; i++) {
      const s = i % SECURITIES;
      const d = Math.floor(i / SECURITIES);
      lines.push(`${isins[s]},${dateAfter(d)},${(100 + s + d * 0.01).toFixed(2)},EUR`);
    }
    const sftp = new SftpClient();
    await sftp.connect({
      host: feed.sftp.host,
      port: feed.sftp.port,
      username: feed.sftp.username,
      password: feed.sftp.password,
      retries: 0,
      readyTimeout: 10_000,
    });
    await sftp.put(Buffer.from(`${lines.join("\n")}\n`), "/prices-crash.csv");
    await sftp.end();

    // Killed once the job is running with at least one part (10,000 rows) stored and more to come.
    const jobsOf = async (runtime: Runtime): Promise<JobBody[]> => {
      const reply = await call("GET", `/api/v1/jobs?feedId=${feed.id}&pageSize=100`, { base: runtime.baseUrl, token });
      expect(reply.status, reply.text).toBe(200);
      return reply.body.data as JobBody[];
    };
    const midFile = await withDiagnostics(
      vi.waitFor(
        async () => {
          const job = (await jobsOf(first)).find((j) => j.fileName === "prices-crash.csv");
          assert.isDefined(job, "no job mid-file");
          expect(job.status, "the job finished before the kill").toBe("running");
          expect(job.counts.accepted, "rows accepted before the kill").toBeGreaterThanOrEqual(10_000);
          return job;
        },
        { timeout: 30_000, interval: 20 },
      ),
      () => first.output(),
    );
    await first.kill();
    expect(midFile.counts.accepted).toBeLessThan(ROWS);
    // The storage outlives the crash (in Azure it is another service): the runtime's Cosmos stand-in
    // and Azurite children notice their parent is gone and close their stores; the next start waits.
    await childrenGone(data.path);

    const second = await startRuntime(env);
    runtimes.push(second);
    token = await adminToken(second.baseUrl);
    const blobs = BlobServiceClient.fromConnectionString(env.STORAGE_CONNECTION_STRING ?? "");
    const listed = async (): Promise<string[]> => {
      const names: string[] = [];
      for (const c of ["inbound", "archive", "quarantine"])
        for await (const b of blobs.getContainerClient(c).listBlobsFlat()) names.push(`${c}/${b.name}`);
      return names;
    };
    const done = await withDiagnostics(
      vi.waitFor(
        async () => {
          const job = (await jobsOf(second)).find((j) => j.id === midFile.id && j.status !== "running");
          assert.isDefined(job, "the job did not finish after the restart");
          expect(
            await blobs.getContainerClient("inbound").getBlobClient(`${feed.id}/prices-crash.csv`).exists(),
            "the file left inbound",
          ).toBe(false);
          return job;
        },
        { timeout: 45_000, interval: 250 },
      ),
      async () => `${JSON.stringify(await listed())}\n${second.output()}`,
    );

    expect(done.status).toBe("completed");
    expect(done.counts).toEqual({ received: ROWS, accepted: ROWS, rejected: 0, removed: 0 });
    const jobs = await jobsOf(second);
    expect(jobs.filter((j) => j.fileName === "prices-crash.csv").map((j) => ({ id: j.id, status: j.status }))).toEqual([
      { id: midFile.id, status: "completed" },
    ]);
    expect(await blobs.getContainerClient("archive").getBlobClient(`${feed.id}/prices-crash.csv`).exists()).toBe(true);

    const cosmos = new CosmosClient({
      endpoint: env.COSMOS_ENDPOINT ?? "",
      key: COSMOS_KEY,
      connectionPolicy: { enableEndpointDiscovery: false },
    });
    try {
      const database = cosmos.database("investment-data");
      const count = async (query: string): Promise<number> =>
        (await database.container("prices").items.query<number>(query).fetchAll()).resources[0] ?? -1;
      // Every row once: as many price documents as rows, and as many distinct (security, id) pairs.
      expect(await count("SELECT VALUE COUNT(1) FROM c WHERE c.docType = 'price'")).toBe(ROWS);
      // Through the read endpoint: one security's first 150 days, one price each.
      const security = await call("GET", `/api/v1/securities/${isins[7]}`, { base: second.baseUrl, token });
      expect(security.status, security.text).toBe(200);
      const prices = await call(
        "GET",
        `/api/v1/securities/${security.body.data.id}/prices?from=${dateAfter(0)}&to=${dateAfter(149)}&pageSize=200`,
        { base: second.baseUrl, token },
      );
      expect(prices.status, prices.text).toBe(200);
      expect((prices.body.data as { date: string }[]).map((p) => p.date).sort()).toEqual(
        Array.from({ length: 150 }, (_, d) => dateAfter(d)),
      );

      const outbox = (
        await database
          .container("events")
          .items.query<EventEnvelope>("SELECT c.id, c.event, c.data FROM c WHERE c.docType = 'outbox'")
          .fetchAll()
      ).resources;
      const ofJob = outbox.filter((e) => (e.data as { jobId?: string }).jobId === midFile.id);
      expect(ofJob.map((e) => e.event)).toEqual(["refresh_job.completed"]);
    } finally {
      cosmos.dispose();
    }
  }, 120_000);
});
