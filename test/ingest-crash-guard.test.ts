import { CosmosClient } from "@azure/cosmos";
import { BlobServiceClient } from "@azure/storage-blob";
import { afterAll, assert, describe, expect, it, vi } from "vitest";
import { MAX_UNFINISHED_ATTEMPTS } from "../shared/app/feeds/ingest-file";
import type { EventEnvelope } from "../shared/domain/events";
import { adminToken, call } from "./http";
import { COSMOS_KEY, newIsin } from "./investment-fixtures";
import { childrenGone } from "./children-gone";
import { runtimeEnv, startRuntime, tempDir, type Runtime } from "./runtime";

const ROWS = 200_000;

/**
 * The crash guard (finding 1b): a file whose ingestion keeps ending the process is not retried
 * forever. Here the process is killed (`kill -9`) each time an attempt of the file has started, as an
 * out-of-memory death would end it; after three such attempts the next start quarantines the file
 * with a failed job saying so, and reads it no more.
 */
describe("file ingestion that keeps crashing its process", () => {
  const data = tempDir("ids-crash-guard-");
  const runtimes: Runtime[] = [];
  afterAll(async () => {
    await Promise.all(runtimes.map((r) => r.stop()));
    data.remove();
  }, 60_000);

  it(`after ${MAX_UNFINISHED_ATTEMPTS} attempts killed mid-file, the next start quarantines the file with a failed job saying it crashed repeatedly`, async () => {
    const env = await runtimeEnv(data.path);
    let runtime = await startRuntime(env);
    runtimes.push(runtime);
    const token = await adminToken(runtime.baseUrl);
    const isins = Array.from({ length: 100 }, () => newIsin());
    const securities = await call("POST", "/api/v1/import/securities", {
      base: runtime.baseUrl,
      token,
      body: {
        securities: isins.map((isin, i) => ({ isin, name: `Guard ${i}`, assetClass: "equity", currency: "EUR" })),
      },
    });
    expect(securities.status, securities.text).toBe(200);
    const created = await call("POST", "/api/v1/settings/feeds", {
      base: runtime.baseUrl,
      token,
      body: {
        name: "crash-guard prices",
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
          source: { value: "crash-guard" },
        },
        status: "live",
      },
    });
    expect(created.status, created.text).toBe(201);
    const feedId = created.body.data.id as string;

    const lines = ["ISIN,Date,Close,Ccy"];
    for (let i = 0; i < ROWS; i++)
      lines.push(
        `${isins[i % 100]},${new Date(Date.UTC(2000, 0, 1) + Math.floor(i / 100) * 86_400_000).toISOString().slice(0, 10)},${(100 + (i % 100)).toFixed(2)},EUR`,
      );
    const content = Buffer.from(`${lines.join("\n")}\n`);
    const blobs = BlobServiceClient.fromConnectionString(env.STORAGE_CONNECTION_STRING ?? "");
    await blobs
      .getContainerClient("inbound")
      .getBlockBlobClient(`${feedId}/prices-guard.csv`)
      .upload(content, content.length);

    const cosmos = new CosmosClient({
      endpoint: env.COSMOS_ENDPOINT ?? "",
      key: COSMOS_KEY,
      connectionPolicy: { enableEndpointDiscovery: false },
    });
    const database = cosmos.database("investment-data");
    const attempts = async (): Promise<number> => {
      const { resources } = await database
        .container("counters")
        .items.query<{ attempts: number }>("SELECT c.attempts FROM c WHERE c.kind = 'ingest-attempt'")
        .fetchAll();
      return resources[0]?.attempts ?? 0;
    };
    try {
      for (let attempt = 1; attempt <= MAX_UNFINISHED_ATTEMPTS; attempt++) {
        // The attempt is recorded before the file is read; the kill lands while it reads 200,000 rows.
        await expect
          .poll(() => attempts(), { message: `attempt ${attempt} to start`, timeout: 60_000, interval: 100 })
          .toBe(attempt);
        await runtime.kill();
        await childrenGone(data.path);
        runtime = await startRuntime(env);
        runtimes.push(runtime);
      }

      const jobs = async () =>
        (await call("GET", `/api/v1/jobs?feedId=${feedId}`, { base: runtime.baseUrl, token })).body.data as Record<
          string,
          any
        >[];
      const job = await vi.waitFor(
        async () => {
          const failed = (await jobs()).find((j) => j.status === "failed");
          assert.isDefined(failed, "the failed job");
          return failed;
        },
        { timeout: 60_000, interval: 100 },
      );
      expect(job).toMatchObject({
        fileName: "prices-guard.csv",
        status: "failed",
        counts: { received: 0, accepted: 0, rejected: 0 },
      });
      expect(job.errors).toEqual([
        {
          field: "file",
          message: `ingestion of this file crashed repeatedly: ${MAX_UNFINISHED_ATTEMPTS} attempts started and none finished (each ended the process running it, e.g. out of memory or killed); the file is quarantined and not tried again`,
        },
      ]);
      expect(await jobs()).toHaveLength(1);
      // The job is written first, then the file moves to quarantine and the attempts are forgotten.
      await expect
        .poll(() => blobs.getContainerClient("quarantine").getBlobClient(`${feedId}/prices-guard.csv`).exists(), {
          timeout: 10_000,
        })
        .toBe(true);
      // A move is a copy then a delete: the inbox copy goes just after the quarantined one appears.
      await expect
        .poll(() => blobs.getContainerClient("inbound").getBlobClient(`${feedId}/prices-guard.csv`).exists(), {
          timeout: 10_000,
        })
        .toBe(false);
      await expect.poll(() => attempts(), { timeout: 10_000 }).toBe(0);
      const outbox = (
        await database
          .container("events")
          .items.query<EventEnvelope>("SELECT c.id, c.event, c.data FROM c WHERE c.docType = 'outbox'")
          .fetchAll()
      ).resources;
      expect(outbox.filter((e) => (e.data as { jobId?: string }).jobId === job.id).map((e) => e.event)).toEqual([
        "refresh_job.failed",
      ]);
      // Nothing of the file was written.
      const prices = await call("GET", `/api/v1/securities/${isins[0]}/prices`, { base: runtime.baseUrl, token });
      expect(prices.status, prices.text).toBe(200);
      expect(prices.body.data).toEqual([]);
      expect(runtime.child.exitCode).toBeNull();
    } finally {
      cosmos.dispose();
    }
  }, 300_000);
});
