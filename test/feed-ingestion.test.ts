import { createHash } from "node:crypto";
import { BlobServiceClient } from "@azure/storage-blob";
import { assert, beforeAll, describe, expect, it, vi } from "vitest";
import { adminToken, baseUrl, call, storageConnectionString, useOwnRuntime } from "./http";
import { eventsWhere, newIsin, whenValued } from "./investment-fixtures";

useOwnRuntime();

const FEEDS = "/api/v1/settings/feeds";

const securitiesCsv = (status: string, validation?: Record<string, unknown>): Record<string, unknown> => ({
  name: `securities ${status}`,
  provider: "Test provider",
  dataType: "securities",
  format: "csv",
  filePattern: "securities-*.csv",
  mapping: { isin: "ISIN", name: "Name", assetClass: "Class", currency: "Ccy" },
  status,
  ...(validation !== undefined ? { validation } : {}),
});

const pricesCsv = {
  name: "closing prices",
  provider: "Test provider",
  dataType: "prices",
  format: "csv",
  filePattern: "prices-*.csv",
  options: { delimiter: ";" },
  mapping: {
    isin: "ISIN",
    date: "Date",
    price: "Close",
    currency: "Ccy",
    type: { value: "close" },
    source: { value: "vendor" },
  },
  status: "live",
};

const csv = (...rows: string[][]): string => `${rows.map((r) => r.join(",")).join("\n")}\n`;
const HEADER = ["ISIN", "Name", "Class", "Ccy"];

describe("Feeds › file ingestion (inbound/<feedId>/<fileName>)", () => {
  let token: string;
  let blobs: BlobServiceClient;

  const newFeed = async (body: Record<string, unknown>): Promise<string> => {
    const reply = await call("POST", FEEDS, { token, body });
    expect(reply.status, reply.text).toBe(201);
    return reply.body.data.id as string;
  };
  const upload = async (feedId: string, fileName: string, content: string): Promise<void> => {
    await blobs
      .getContainerClient("inbound")
      .getBlockBlobClient(`${feedId}/${fileName}`)
      .upload(content, Buffer.byteLength(content));
  };
  const exists = (container: string, feedId: string, fileName: string): Promise<boolean> =>
    blobs.getContainerClient(container).getBlobClient(`${feedId}/${fileName}`).exists();
  const jobsOf = async (feedId: string): Promise<Record<string, any>[]> => {
    const reply = await call("GET", `/api/v1/jobs?feedId=${feedId}&pageSize=100`, { token });
    expect(reply.status, reply.text).toBe(200);
    return reply.body.data;
  };
  /** The finished job of `fileName` once it is there and the file has left inbound. */
  const finished = (feedId: string, fileName: string): Promise<Record<string, any>> =>
    vi.waitFor(
      async () => {
        const job = (await jobsOf(feedId)).find((j) => j.fileName === fileName && j.status !== "running");
        assert.isDefined(job, `the job of ${fileName}`);
        expect(await exists("inbound", feedId, fileName), `${fileName} left inbound`).toBe(false);
        return job;
      },
      { timeout: 30_000, interval: 100 },
    );
  const security = (isin: string) => call("GET", `/api/v1/securities/${isin}`, { token });

  beforeAll(async () => {
    token = await adminToken();
    blobs = BlobServiceClient.fromConnectionString(storageConnectionString());
  });

  it("live: a securities file, then a prices file, are written and readable; the files are archived; jobs filter by feedId and source", async () => {
    const feedId = await newFeed(securitiesCsv("live"));
    const [a, b] = [newIsin("GB"), newIsin("GB")];
    await upload(
      feedId,
      "securities-1.csv",
      csv(HEADER, [a, "Alpha plc", "equity", "GBP"], [b, "Beta plc", "bond", "GBP"]),
    );
    const job = await finished(feedId, "securities-1.csv");
    expect(job).toMatchObject({
      source: "blob",
      dataType: "securities",
      feedId,
      fileName: "securities-1.csv",
      status: "completed",
      counts: { received: 2, accepted: 2, rejected: 0 },
      errors: [],
    });
    expect((await security(a)).body.data).toMatchObject({
      isin: a,
      name: "Alpha plc",
      assetClass: "equity",
      currency: "GBP",
    });
    expect((await security(b)).status).toBe(200);
    expect(await exists("archive", feedId, "securities-1.csv")).toBe(true);
    expect(
      (await call("GET", `/api/v1/jobs?source=blob&feedId=${feedId}`, { token })).body.data.map(
        (j: { id: string }) => j.id,
      ),
    ).toEqual([job.id]);
    expect((await call("GET", `/api/v1/jobs?source=api&feedId=${feedId}`, { token })).body.data).toEqual([]);

    const prices = await newFeed(pricesCsv);
    await upload(
      prices,
      "prices-2024-03-28.csv",
      `ISIN;Date;Close;Ccy\n${a};2024-03-28;101.5;GBP\n${b};2024-03-28;99.25;GBP\n`,
    );
    const priceJob = await finished(prices, "prices-2024-03-28.csv");
    expect(priceJob).toMatchObject({
      status: "completed",
      dataType: "prices",
      counts: { received: 2, accepted: 2, rejected: 0 },
    });
    const sec = (await security(a)).body.data;
    const list = await call("GET", `/api/v1/securities/${sec.id}/prices`, { token });
    expect(list.status, list.text).toBe(200);
    expect(list.body.data).toContainEqual(
      expect.objectContaining({ date: "2024-03-28", price: 101.5, currency: "GBP", type: "close" }),
    );
  });

  it("reject-file: a bad row fails the job naming row and field; nothing is written and the file is quarantined", async () => {
    const feedId = await newFeed(securitiesCsv("live"));
    const [good, bad] = [newIsin("GB"), newIsin("GB")];
    await upload(
      feedId,
      "securities-bad.csv",
      csv(HEADER, [good, "Good plc", "equity", "GBP"], [bad, "Bad plc", "shares", "GBP"]),
    );
    const job = await finished(feedId, "securities-bad.csv");
    expect(job.status).toBe("failed");
    expect(job.counts).toEqual({ received: 2, accepted: 0, rejected: 1, removed: 0 });
    expect(job.errors).toContainEqual({ field: "assetClass", message: expect.stringMatching(/^row 2 \(Class\): /) });
    expect((await security(good)).status).toBe(404);
    expect(await exists("quarantine", feedId, "securities-bad.csv")).toBe(true);
    expect(await exists("archive", feedId, "securities-bad.csv")).toBe(false);
  });

  it("a file failed by a wrong mapping: its quarantined file downloads byte for byte; once the mapping is fixed, Process again makes a new job that stores the rows once", async () => {
    const feedId = await newFeed(securitiesCsv("live"));
    const [a, b] = [newIsin("GB"), newIsin("GB")];
    // A BOM and a non-ASCII name: the download must be the bytes, not a re-encoding.
    const content = `\uFEFF${csv(["ISIN", "Name", "Class", "Currency"], [a, "Société A", "equity", "EUR"], [b, "B plc", "bond", "GBP"])}`;
    await upload(feedId, "securities-mapped.csv", content);
    const failed = await finished(feedId, "securities-mapped.csv");
    expect(failed).toMatchObject({ status: "failed", counts: { accepted: 0 } });

    const download = await fetch(`${baseUrl()}/api/v1/jobs/${failed.id}/file`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(download.status).toBe(200);
    expect(download.headers.get("content-type")).toBe("application/octet-stream");
    expect(download.headers.get("content-disposition")).toBe(
      `attachment; filename="securities-mapped.csv"; filename*=UTF-8''securities-mapped.csv`,
    );
    expect(Buffer.from(await download.arrayBuffer()).equals(Buffer.from(content, "utf8"))).toBe(true);

    // The mapping fixed, the same content is processed again as a new job (not a duplicate).
    const fixed = await call("PATCH", `${FEEDS}/${feedId}`, {
      token,
      body: { mapping: { isin: "ISIN", name: "Name", assetClass: "Class", currency: "Currency" } },
    });
    expect(fixed.status, fixed.text).toBe(200);
    const again = await call("POST", `/api/v1/jobs/${failed.id}/reprocess`, {
      token,
      headers: { "Idempotency-Key": `again-${failed.id}` },
    });
    expect(again.status, again.text).toBe(202);
    const job = again.body.data;
    expect(job).toMatchObject({ feedId, fileName: "securities-mapped.csv", reprocessOf: failed.id, status: "running" });
    expect(job.id).not.toBe(failed.id);
    expect(again.headers.get("location")).toBe(`/api/v1/jobs/${job.id}`);
    const done = await vi.waitFor(
      async () => {
        const reply = await call("GET", `/api/v1/jobs/${job.id}`, { token });
        expect(reply.body.data.status).not.toBe("running");
        return reply.body.data;
      },
      { timeout: 30_000, interval: 100 },
    );
    expect(done).toMatchObject({
      status: "completed",
      reprocessOf: failed.id,
      fileName: "securities-mapped.csv",
      counts: { received: 2, accepted: 2, rejected: 0 },
    });
    expect(done.duplicateOf).toBeUndefined();
    expect((await security(a)).body.data).toMatchObject({ name: "Société A", currency: "EUR" });
    expect((await security(b)).body.data).toMatchObject({ name: "B plc", currency: "GBP" });
    // The same request repeated: the same job, nothing run again.
    const repeated = await call("POST", `/api/v1/jobs/${failed.id}/reprocess`, {
      token,
      headers: { "Idempotency-Key": `again-${failed.id}` },
    });
    expect(repeated.status).toBe(202);
    expect(repeated.body.data.id).toBe(job.id);
    const jobs = await jobsOf(feedId);
    expect(jobs.map((j) => j.id).sort()).toEqual([failed.id, job.id].sort());
    expect(jobs.find((j) => j.id === failed.id)?.status).toBe("failed");
    expect(await eventsWhere("refresh_job.completed", (d) => d.jobId === job.id)).toHaveLength(1);

    // What cannot be processed again: a completed job (409), an API import's job (422), an unknown job (404).
    const completed = await call("POST", `/api/v1/jobs/${job.id}/reprocess`, { token });
    expect(completed.status).toBe(409);
    expect(completed.body.error.code).toBe("CONFLICT");
    const imported = await call("POST", "/api/v1/import/securities", {
      token,
      body: { securities: [{ isin: newIsin("GB"), name: "C plc", assetClass: "equity", currency: "GBP" }] },
    });
    expect(imported.status, imported.text).toBe(200);
    const api = await call("POST", `/api/v1/jobs/${imported.body.data.jobId}/reprocess`, { token });
    expect(api.status, api.text).toBe(422);
    expect(api.body.error.code).toBe("VALIDATION_ERROR");
    expect((await call("POST", "/api/v1/jobs/job_nope/reprocess", { token })).status).toBe(404);
    // An API job has no file; a file the service no longer keeps is 404 to download, 409 to process again.
    expect((await call("GET", `/api/v1/jobs/${imported.body.data.jobId}/file`, { token })).status).toBe(404);
    await blobs.getContainerClient("quarantine").getBlobClient(`${feedId}/securities-mapped.csv`).delete();
    const gone = await call("GET", `/api/v1/jobs/${failed.id}/file`, { token });
    expect(gone.status).toBe(404);
    expect(gone.body.error.code).toBe("NOT_FOUND");
    expect((await call("POST", `/api/v1/jobs/${failed.id}/reprocess`, { token })).status).toBe(409);
  });

  it("a large quarantined file (32 MB) downloads whole and exact, streamed from storage with its Content-Length", async () => {
    const feedId = await newFeed(securitiesCsv("live"));
    // A quote left open in row 1: the reader gives up at once (a file read to its end would take long
    // here), the job fails and the 32 MB are quarantined.
    const isin = newIsin("GB");
    const parts = [`ISIN,Name,Class,Ccy\n${isin},"Unclosed,equity,GBP\n`];
    for (let i = 0, length = 0; length < 32 * 1024 * 1024; i++) {
      parts.push(`${isin},Large file security ${i} ${"x".repeat(60)},equity,GBP\n`);
      length += parts.at(-1)!.length;
    }
    const content = Buffer.from(parts.join(""), "utf8");
    await blobs
      .getContainerClient("inbound")
      .getBlockBlobClient(`${feedId}/securities-large.csv`)
      .uploadData(content, { blockSize: 8 * 1024 * 1024 });
    const failed = await finished(feedId, "securities-large.csv");
    expect(failed).toMatchObject({ status: "failed", counts: { accepted: 0 } });
    expect(await exists("quarantine", feedId, "securities-large.csv")).toBe(true);

    const download = await fetch(`${baseUrl()}/api/v1/jobs/${failed.id}/file`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(download.status).toBe(200);
    expect(download.headers.get("content-length")).toBe(String(content.length));
    const hash = createHash("sha256");
    let received = 0;
    let chunks = 0;
    for await (const chunk of download.body!) {
      hash.update(chunk);
      received += chunk.length;
      chunks++;
    }
    expect(received).toBe(content.length);
    expect(hash.digest("hex")).toBe(createHash("sha256").update(content).digest("hex"));
    expect(chunks).toBeGreaterThan(1);
  }, 120_000);

  it("skip-row: the good rows are written, one VALIDATION_FAILED exception per bad row; the same content again is a duplicate", async () => {
    const feedId = await newFeed(securitiesCsv("live", { onRowError: "skip-row", maxRejectedRows: 5 }));
    const [a, b, c] = [newIsin("GB"), newIsin("GB"), newIsin("GB")];
    const content = csv(
      HEADER,
      [a, "A plc", "equity", "GBP"],
      [b, "B plc", "shares", "GBP"],
      [c, "C plc", "fund", "GBP"],
      ["XX", "D plc", "equity", "GBP"],
    );
    await upload(feedId, "securities-skip.csv", content);
    const job = await finished(feedId, "securities-skip.csv");
    expect(job).toMatchObject({ status: "completed", counts: { received: 4, accepted: 2, rejected: 2 } });
    expect((await security(a)).status).toBe(200);
    expect((await security(c)).status).toBe(200);
    expect((await security(b)).status).toBe(404);
    const exceptions = (
      await call("GET", "/api/v1/exceptions?type=VALIDATION_FAILED&pageSize=100", { token })
    ).body.data.filter((e: { jobId: string }) => e.jobId === job.id);
    expect(exceptions.map((e: { message: string }) => e.message).sort()).toEqual([
      expect.stringMatching(/^securities-skip\.csv row 2: assetClass \(Class\): /),
      expect.stringMatching(/^securities-skip\.csv row 4: isin \(ISIN\): /),
    ]);

    await upload(feedId, "securities-skip-again.csv", content);
    const again = await finished(feedId, "securities-skip-again.csv");
    expect(again).toMatchObject({ status: "completed", counts: { accepted: 0 }, duplicateOf: job.id });
    expect(await exists("archive", feedId, "securities-skip-again.csv")).toBe(true);
    expect((await jobsOf(feedId)).length).toBe(2);
  });

  it("skip-row over several parts: 12,500 rows with 3 bad ones write the 12,497 good ones under one job, one exception per bad row", async () => {
    const isins = Array.from({ length: 5 }, () => newIsin());
    const imported = await call("POST", "/api/v1/import/securities", {
      token,
      body: {
        securities: isins.map((isin, i) => ({ isin, name: `Parts ${i}`, assetClass: "equity", currency: "EUR" })),
      },
    });
    expect(imported.status, imported.text).toBe(200);
    const feedId = await newFeed({
      ...pricesCsv,
      name: "closing prices, skip-row",
      validation: { onRowError: "skip-row", maxRejectedRows: 10 },
    });
    const day = (d: number): string => new Date(Date.UTC(2015, 0, 1) + d * 86_400_000).toISOString().slice(0, 10);
    // Row r (1-based) is security (r-1) % 5 on day floor((r-1) / 5); rows 3, 10,001 and 12,500 are bad.
    const bad = new Set([3, 10_001, 12_500]);
    const lines = ["ISIN;Date;Close;Ccy"];
    for (let r = 1; r <= 12_500; r++)
      lines.push(
        `${isins[(r - 1) % 5]};${day(Math.floor((r - 1) / 5))};${bad.has(r) ? "n/a" : (50 + ((r - 1) % 5) + Math.floor((r - 1) / 5) * 0.001).toFixed(3)};EUR`,
      );
    await upload(feedId, "prices-parts.csv", `${lines.join("\n")}\n`);
    const job = await finished(feedId, "prices-parts.csv");
    expect(job).toMatchObject({ status: "completed", counts: { received: 12_500, accepted: 12_497, rejected: 3 } });
    expect((await jobsOf(feedId)).length).toBe(1);

    const exceptions = (
      await call("GET", "/api/v1/exceptions?type=VALIDATION_FAILED&pageSize=100", { token })
    ).body.data.filter((e: { jobId: string }) => e.jobId === job.id);
    expect(exceptions.map((e: { message: string }) => e.message.replace(/:.*$/, "")).sort()).toEqual([
      "prices-parts.csv row 10001",
      "prices-parts.csv row 12500",
      "prices-parts.csv row 3",
    ]);
    // Row 10,001 (security 0, day 2000) is missing, its neighbours are stored, in the part after the first.
    const security = await call("GET", `/api/v1/securities/${isins[0]}`, { token });
    const prices = await call(
      "GET",
      `/api/v1/securities/${security.body.data.id}/prices?from=${day(1999)}&to=${day(2001)}`,
      { token },
    );
    expect(prices.status, prices.text).toBe(200);
    expect((prices.body.data as { date: string }[]).map((p) => p.date).sort()).toEqual([day(1999), day(2001)]);
  });

  it("a file that loads nothing fails whatever onRowError says: no valid row under skip-row, or a header without a mapped column; refresh_job.failed", async () => {
    const feedId = await newFeed(securitiesCsv("live", { onRowError: "skip-row" }));
    const bad = newIsin("GB");
    await upload(
      feedId,
      "securities-none.csv",
      csv(HEADER, [bad, "Bad plc", "shares", "GBP"], ["XX", "D plc", "equity", "GBP"]),
    );
    const none = await finished(feedId, "securities-none.csv");
    expect(none).toMatchObject({ status: "failed", counts: { received: 2, accepted: 0, rejected: 2 } });
    expect(none.errors[0]).toEqual({ field: "file", message: "no row is valid (2 rows rejected)" });
    expect(await exists("quarantine", feedId, "securities-none.csv")).toBe(true);

    const good = newIsin("GB");
    await upload(
      feedId,
      "securities-header.csv",
      csv(["ISIN", "Name", "Class", "Currency"], [good, "Good plc", "equity", "GBP"]),
    );
    const header = await finished(feedId, "securities-header.csv");
    // Its one row is a valid partial record; the file still does not match the feed.
    expect(header).toMatchObject({ status: "failed", counts: { received: 1, accepted: 0, rejected: 0 } });
    expect(header.errors).toEqual([
      {
        field: "file",
        message: `the file's header lacks the mapped column "Ccy"; the file does not match the feed's mapping`,
      },
      {
        field: "currency",
        message: `header (Ccy): the mapped column "Ccy" is not in the file's header (its columns: "ISIN", "Name", "Class", "Currency")`,
      },
    ]);
    expect((await security(good)).status).toBe(404);
    for (const job of [none, header])
      expect(await eventsWhere("refresh_job.failed", (d) => d.jobId === job.id), job.fileName).toHaveLength(1);
  });

  it("positions over several import calls: a portfolio-date split across two calls keeps both parts' rows, its replaced positions are counted exactly, and it is valued once, whole; a smaller file removes and revalues", async () => {
    // 101 portfolios × 100 securities on one date: 10,100 rows, imported in calls of 10,000 rows.
    const D = "2015-06-30";
    const isins = Array.from({ length: 101 }, () => newIsin());
    const secs = await call("POST", "/api/v1/import/securities", {
      token,
      body: {
        securities: isins.map((isin, i) => ({ isin, name: `Split ${i}`, assetClass: "equity", currency: "EUR" })),
      },
    });
    expect(secs.status, secs.text).toBe(200);
    const prices = await call("POST", "/api/v1/import/prices", {
      token,
      body: {
        prices: isins.map((isin) => ({ isin, date: D, price: 10, currency: "EUR", type: "close", source: "vendor" })),
      },
    });
    expect(prices.status, prices.text).toBe(200);
    const codes = Array.from({ length: 101 }, (_, i) => `SPLIT-${Date.now().toString(36)}-${i}`);
    const ids = await Promise.all(
      codes.map(async (code) => {
        const created = await call("POST", "/api/v1/portfolios", {
          token,
          body: { name: code, code, clientId: "split", baseCurrency: "EUR" },
        });
        expect(created.status, created.text).toBe(201);
        return created.body.data.id as string;
      }),
    );
    const [first, last] = [ids[0] as string, ids[100] as string];
    // Before the file, the first portfolio holds the 100 securities and a 101st the file does not name.
    const prior = await call("POST", "/api/v1/import/positions", {
      token,
      body: { positions: isins.map((isin) => ({ portfolioId: first, isin, date: D, quantity: 1 })) },
    });
    expect(prior.status, prior.text).toBe(200);
    await whenValued(token, first);

    const feedId = await newFeed({
      name: "custodian positions",
      provider: "Test custodian",
      dataType: "positions",
      format: "csv",
      filePattern: "positions-*.csv",
      mapping: { portfolioCode: "Account", isin: "ISIN", date: { value: D }, quantity: "Units" },
      status: "live",
    });
    const row = (p: number, s: number): string => `${codes[p]},${isins[s]},1`;
    const lines = ["Account,ISIN,Units"];
    // The first portfolio's first 50 rows, the other 100 portfolios whole, then its last 50: the first
    // portfolio is split across the two calls, and so is the last (rows 9,951 to 10,050).
    for (let s = 0; s < 50; s++) lines.push(row(0, s));
    for (let p = 1; p <= 100; p++) for (let s = 0; s < 100; s++) lines.push(row(p, s));
    for (let s = 50; s < 100; s++) lines.push(row(0, s));
    await upload(feedId, "positions-split.csv", `${lines.join("\n")}\n`);
    const job = await finished(feedId, "positions-split.csv");
    // The first portfolio's 101st position is the one removed; each position the first call replaced
    // and the second restated is not.
    expect(job).toMatchObject({
      status: "completed",
      counts: { received: 10_100, accepted: 10_100, rejected: 0, removed: 1 },
    });
    await whenValued(token, first, last);
    for (const id of [first, last]) {
      const view = (await call("GET", `/api/v1/portfolios/${id}/holdings?date=${D}`, { token })).body.data;
      expect(view.holdings, id).toHaveLength(100);
      expect(view).toMatchObject({ totalValue: 1000, complete: true });
    }
    // Valued once after the whole file: never on the 50 positions of its first call alone.
    const totals = async (id: string) =>
      (await eventsWhere("portfolio.valued", (d) => d.portfolioId === id)).map((e) => e.data.totalValue);
    expect(await totals(first)).toEqual([1010, 1000]);
    expect(await totals(last)).toEqual([1000]);

    // A smaller file for the first portfolio: its 100th position is removed, counted, and revalued.
    const smaller = ["Account,ISIN,Units", ...Array.from({ length: 99 }, (_, s) => row(0, s))];
    await upload(feedId, "positions-smaller.csv", `${smaller.join("\n")}\n`);
    expect(await finished(feedId, "positions-smaller.csv")).toMatchObject({
      status: "completed",
      counts: { received: 99, accepted: 99, rejected: 0, removed: 1 },
    });
    await whenValued(token, first);
    const after = (await call("GET", `/api/v1/portfolios/${first}/holdings?date=${D}`, { token })).body.data;
    expect(after).toMatchObject({ totalValue: 990, complete: true });
    expect(after.holdings).toHaveLength(99);
  }, 120_000);

  it("a file the reader cannot read is quarantined with a failed job", async () => {
    const feedId = await newFeed(securitiesCsv("live"));
    await upload(feedId, "securities-corrupt.csv", `ISIN,Name,Class,Ccy\n${newIsin("GB")},"Unclosed,equity,GBP\n`);
    const job = await finished(feedId, "securities-corrupt.csv");
    expect(job.status).toBe("failed");
    expect(job.errors[0]).toEqual({ field: "file", message: expect.stringContaining("cannot be read as csv") });
    expect(await exists("quarantine", feedId, "securities-corrupt.csv")).toBe(true);
  });

  it("testing: the file is read and validated, nothing written, the job completed saying what would happen; first-seen content is not a duplicate once live", async () => {
    const feedId = await newFeed(securitiesCsv("testing"));
    const isin = newIsin("GB");
    const content = csv(HEADER, [isin, "Trial plc", "equity", "GBP"]);
    await upload(feedId, "securities-trial.csv", content);
    const job = await finished(feedId, "securities-trial.csv");
    expect(job).toMatchObject({ status: "completed", counts: { received: 1, accepted: 1, rejected: 0 } });
    expect(job.errors[0].message).toMatch(/^testing: nothing was written/);
    expect((await security(isin)).status).toBe(404);
    expect(await exists("archive", feedId, "securities-trial.csv")).toBe(true);

    expect((await call("PATCH", `${FEEDS}/${feedId}`, { token, body: { status: "live" } })).status).toBe(200);
    await upload(feedId, "securities-live.csv", content);
    const live = await finished(feedId, "securities-live.csv");
    expect(live).toMatchObject({ status: "completed", counts: { accepted: 1 } });
    expect(live.duplicateOf).toBeUndefined();
    expect((await security(isin)).status).toBe(200);
  });

  it("a name the feed's pattern does not match, or a file of no feed, stays in inbound with no job", async () => {
    const feedId = await newFeed(securitiesCsv("live"));
    await upload(feedId, "other-name.csv", csv(HEADER, [newIsin("GB"), "X plc", "equity", "GBP"]));
    await upload("fd_000000000000000000", "securities-1.csv", csv(HEADER, [newIsin("GB"), "Y plc", "equity", "GBP"]));
    // The blob host scans every 2 s: after two scans the files are still there and no job was made.
    await new Promise((r) => setTimeout(r, 5000));
    expect(await exists("inbound", feedId, "other-name.csv")).toBe(true);
    expect(await exists("inbound", "fd_000000000000000000", "securities-1.csv")).toBe(true);
    expect(await jobsOf(feedId)).toEqual([]);
  });
});
