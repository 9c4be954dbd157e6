import { readFileSync } from "node:fs";
import { join } from "node:path";
import { BlobServiceClient } from "@azure/storage-blob";
import { afterAll, assert, beforeAll, describe, expect, it, vi } from "vitest";
import { adminToken, call, type Reply } from "./http";
import { sharedStringRows, sharedStrings, workbook } from "./hostile-workbooks";
import { newIsin } from "./investment-fixtures";
import { runtimeEnv, startRuntime, tempDir, type Runtime } from "./runtime";

/**
 * The probe's hostile files, over the real paths of a runtime of this file's own: a dry run through
 * the API, or the file written into `inbound/<feedId>/` as an upload is, for the blob host to ingest.
 */
const FEEDS = "/api/v1/settings/feeds";
const SOH = "\x01";

/** A FIX message with a correct BodyLength and checksum. */
function fixMessage(fields: [string, string][]): string {
  const body = fields.map(([tag, value]) => `${tag}=${value}${SOH}`).join("");
  const head = `8=FIX.4.4${SOH}9=${Buffer.byteLength(body, "latin1")}${SOH}`;
  let sum = 0;
  for (const byte of Buffer.from(head + body, "latin1")) sum += byte;
  return `${head + body}10=${String(sum % 256).padStart(3, "0")}${SOH}`;
}

/** The probe's message: one 35=W whose NoPositions group (702) declares and holds `entries` one-field entries. */
const groupBomb = (entries: number): Buffer =>
  Buffer.from(
    fixMessage([
      ["35", "W"],
      ["55", "X"],
      ["702", String(entries)],
      ...Array.from({ length: entries }, (): [string, string] => ["703", "1"]),
    ]),
    "latin1",
  );

describe("hostile files: the file readers, the dry run and ingestion", () => {
  const data = tempDir("ids-hostile-");
  let runtime: Runtime;
  let token: string;
  let blobs: BlobServiceClient;
  const base = () => runtime.baseUrl;
  const api = (method: string, path: string, body?: unknown): Promise<Reply> =>
    call(method, path, { base: base(), token, ...(body !== undefined ? { body } : {}) });
  const newFeed = async (body: Record<string, unknown>): Promise<string> => {
    const reply = await api("POST", FEEDS, body);
    expect(reply.status, reply.text).toBe(201);
    return reply.body.data.id as string;
  };
  const dryRun = async (feedId: string, fileName: string, file: Buffer): Promise<Reply> => {
    const response = await fetch(`${base()}${FEEDS}/${feedId}/test?fileName=${encodeURIComponent(fileName)}`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/octet-stream" },
      body: file,
    });
    const text = await response.text();
    return {
      status: response.status,
      headers: response.headers,
      body: text === "" ? undefined : JSON.parse(text),
      text,
    };
  };
  const upload = async (feedId: string, fileName: string, content: Buffer | string): Promise<void> => {
    const bytes = typeof content === "string" ? Buffer.from(content) : content;
    await blobs.getContainerClient("inbound").getBlockBlobClient(`${feedId}/${fileName}`).upload(bytes, bytes.length);
  };
  const exists = (container: string, feedId: string, fileName: string): Promise<boolean> =>
    blobs.getContainerClient(container).getBlobClient(`${feedId}/${fileName}`).exists();
  /** The finished job of `fileName` once it is there and the file has left inbound. */
  const finished = (feedId: string, fileName: string): Promise<Record<string, any>> =>
    vi.waitFor(
      async () => {
        const reply = await api("GET", `/api/v1/jobs?feedId=${feedId}&pageSize=100`);
        const job = (reply.body.data as Record<string, any>[]).find(
          (j) => j.fileName === fileName && j.status !== "running",
        );
        assert.isDefined(job, `the job of ${fileName}`);
        expect(await exists("inbound", feedId, fileName), `${fileName} left inbound`).toBe(false);
        return job;
      },
      { timeout: 60_000, interval: 100 },
    );
  const alive = async (): Promise<void> => {
    expect(runtime.child.exitCode, runtime.output()).toBeNull();
    expect((await api("GET", "/api/v1/portfolios")).status).toBe(200);
  };

  beforeAll(async () => {
    runtime = await startRuntime(await runtimeEnv(data.path));
    token = await adminToken(runtime.baseUrl);
    blobs = BlobServiceClient.fromConnectionString(runtime.env.STORAGE_CONNECTION_STRING ?? "");
  }, 60_000);
  afterAll(async () => {
    await runtime?.stop();
    data.remove();
  }, 60_000);

  describe("finding 1: a FIX repeating group of 150,000 entries", () => {
    const fixPrices = (status: string) => ({
      name: `FIX prices ${status}`,
      provider: "Counterparty",
      dataType: "prices",
      format: "fix",
      filePattern: "*.fix",
      options: { dateFormat: "yyyyMMdd" },
      mapping: {
        isin: "48",
        date: "715",
        price: "730",
        currency: "15",
        type: { value: "close" },
        source: { value: "fix-feed" },
      },
      status,
    });

    it("delivered to a live feed (900 KB): the runtime stays up, the job fails naming the message, the file is quarantined; the next file is ingested", async () => {
      const feedId = await newFeed(fixPrices("live"));
      const bomb = groupBomb(150_000);
      expect(bomb.length).toBeGreaterThan(900_000);
      await upload(feedId, "positions-bomb.fix", bomb);
      const job = await finished(feedId, "positions-bomb.fix");
      expect(job).toMatchObject({ status: "failed", counts: { received: 0, accepted: 0, rejected: 0 } });
      expect(job.errors).toEqual([
        { field: "file", message: "the file cannot be read as fix: message 1 has more than 10000 fields" },
      ]);
      expect(await exists("quarantine", feedId, "positions-bomb.fix")).toBe(true);
      await alive();

      const isin = newIsin("US");
      expect(
        (
          await api("POST", "/api/v1/import/securities", {
            securities: [{ isin, name: "After the bomb", assetClass: "equity", currency: "USD" }],
          })
        ).status,
      ).toBe(200);
      await upload(
        feedId,
        "prices-after.fix",
        fixMessage([
          ["35", "W"],
          ["48", isin],
          ["715", "20240328"],
          ["730", "101.25"],
          ["15", "USD"],
        ]),
      );
      expect(await finished(feedId, "prices-after.fix")).toMatchObject({
        status: "completed",
        counts: { received: 1, accepted: 1, rejected: 0 },
      });
    }, 120_000);

    it("its 1.8 MB form in a dry run, sent in one piece: 422 naming the message, no crash", async () => {
      const feedId = await newFeed(fixPrices("testing"));
      const bomb = groupBomb(300_000);
      expect(bomb.length).toBeGreaterThan(1_800_000);
      const reply = await dryRun(feedId, "bomb.fix", bomb);
      expect(reply.status, reply.text).toBe(422);
      expect(reply.body.error).toMatchObject({
        code: "VALIDATION_ERROR",
        message: "The file cannot be read as fix",
        details: [{ field: "file", message: "message 1 has more than 10000 fields" }],
      });
      // Under the field bound, the group bound says which group.
      const groups = await dryRun(feedId, "groups.fix", groupBomb(5_000));
      expect(groups.status, groups.text).toBe(422);
      expect(groups.body.error.details).toEqual([
        {
          field: "file",
          message: "message 1: group 702 declares 5000 entries; a message may hold at most 1000 group entries in all",
        },
      ]);
      await alive();
    });

    it("a plain mapping of a tag inside a group names the group and the selector in each row error", async () => {
      const feedId = await newFeed({
        ...fixPrices("testing"),
        dataType: "positions",
        mapping: { portfolioCode: { value: "PF-1" }, isin: "48", date: "715", quantity: "704" },
      });
      const report = fixMessage([
        ["35", "AP"],
        ["48", "US0378331005"],
        ["715", "20240328"],
        ["702", "1"],
        ["703", "TQ"],
        ["704", "100"],
      ]);
      const reply = await dryRun(feedId, "report.fix", Buffer.from(report, "latin1"));
      expect(reply.status, reply.text).toBe(200);
      expect(reply.body.data.errors).toEqual([
        {
          row: 1,
          field: "quantity",
          column: "704",
          message:
            "is required, but tag 704 has no value: tag 704 is found only inside the repeating group 702 (NoPositions); name its entry with a selector, e.g. 702[703=…].704",
        },
      ]);
    });
  });
  describe("finding 8: parallel XLSX dry runs", () => {
    const xlsxFeed = {
      name: "Workbook",
      provider: "Custodian",
      dataType: "securities",
      format: "xlsx",
      filePattern: "*.xlsx",
      mapping: { isin: "s0", name: "s1", assetClass: { value: "equity" }, currency: { value: "EUR" } },
    };

    it("six at once of the probe's workbook (2.4 million shared strings): each is refused (422 naming the part) or turned away (503 with Retry-After); the runtime stays up", async () => {
      const feedId = await newFeed(xlsxFeed);
      const probe = workbook({ sheet: sharedStringRows(2), sharedStrings: sharedStrings(2_400_000) });
      const replies = await Promise.all(Array.from({ length: 6 }, () => dryRun(feedId, "probe.xlsx", probe)));
      for (const reply of replies) {
        expect([422, 503], reply.text).toContain(reply.status);
        if (reply.status === 422)
          expect(reply.body.error.details).toEqual([
            { field: "file", message: "The zip entry xl/sharedStrings.xml is larger than 33554432 bytes" },
          ]);
      }
      await alive();
    }, 120_000);

    it("six at once of a workbook at the bounds (990,000 shared strings): at most two parse at once, the others get 503 SERVICE_UNAVAILABLE with Retry-After; the runtime stays up", async () => {
      const feedId = await newFeed({ ...xlsxFeed, mapping: { ...xlsxFeed.mapping, isin: "ISIN", name: "Name" } });
      const texts = (i: number): string =>
        i < 4 ? (["ISIN", "Name", "DE0007164600", "SAP SE"][i] ?? "") : i.toString(36);
      const big = workbook({ sheet: sharedStringRows(2), sharedStrings: sharedStrings(990_000, texts) });
      const replies = await Promise.all(Array.from({ length: 6 }, () => dryRun(feedId, "big.xlsx", big)));
      const statuses = replies.map((r) => r.status).sort();
      expect(
        statuses.filter((s) => s !== 200 && s !== 503),
        JSON.stringify(replies.map((r) => r.text.slice(0, 300))),
      ).toEqual([]);
      expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(1);
      expect(statuses.filter((s) => s === 503).length).toBeGreaterThanOrEqual(1);
      for (const reply of replies) {
        if (reply.status === 200)
          expect(reply.body.data).toMatchObject({
            received: 1,
            valid: 1,
            rejected: 0,
            verdict: "accepted",
            preview: [{ isin: "DE0007164600", name: "SAP SE" }],
          });
        else {
          expect(reply.headers.get("retry-after")).toBe("5");
          expect(reply.body.error).toEqual({
            code: "SERVICE_UNAVAILABLE",
            message: "2 dry runs are running on this instance, as many as it takes at once; retry shortly",
            requestId: expect.any(String),
          });
        }
      }
      // Before, each run held every shared string with no bound on how many ran: six of these (or
      // three of the probe's, 667 MB) ended the runtime's 512 MB heap. One run's bound is measured
      // in shared/formats/xlsx-bounds.test.ts.
      await alive();
      // A turned-away run succeeds when retried.
      const retried = await dryRun(feedId, "big.xlsx", big);
      expect(retried.status, retried.text).toBe(200);
    }, 120_000);
  });

  describe("finding 13 and the dry run as ingestion's first pass", () => {
    const HEADER = "ISIN,Name,Class,Ccy";
    const securitiesFeed = (status: string, validation?: Record<string, unknown>) => ({
      name: `securities ${status} ${JSON.stringify(validation ?? {})}`,
      provider: "Test provider",
      dataType: "securities",
      format: "csv",
      filePattern: "securities-*.csv",
      mapping: { isin: "ISIN", name: "Name", assetClass: "Class", currency: "Ccy" },
      status,
      ...(validation !== undefined ? { validation } : {}),
    });
    const rows = (good: number, bad: number): string => {
      const lines = [HEADER];
      for (let i = 0; i < good; i += 1) lines.push(`${newIsin("GB")},Good ${i},equity,GBP`);
      // Each bad row has two errors: a wrong check digit and an unknown asset class.
      for (let i = 0; i < bad; i += 1) lines.push(`GB00000000${String(i % 10)}0,Bad ${i},metal,GBP`);
      return `${lines.join("\n")}\n`;
    };

    it("a 1,500-row file with 2 errors per row: the dry run and the job both count 1,500; only the listed errors stop at 1,000", async () => {
      const feedId = await newFeed(securitiesFeed("live"));
      const file = rows(0, 1500);
      const dry = await dryRun(feedId, "securities-errors.csv", Buffer.from(file));
      expect(dry.status, dry.text).toBe(200);
      expect(dry.body.data).toMatchObject({
        received: 1500,
        valid: 0,
        rejected: 1500,
        verdict: "rejected",
        errorsTruncated: true,
      });
      expect(dry.body.data.errors).toHaveLength(1000);
      await upload(feedId, "securities-errors.csv", file);
      const job = await finished(feedId, "securities-errors.csv");
      expect(job).toMatchObject({ status: "failed", counts: { received: 1500, accepted: 0, rejected: 1500 } });
      expect(job.errors[0]).toEqual({
        field: "file",
        message: "1500 rows rejected; the feed rejects the whole file on any row error",
      });
      expect(job.errors).toHaveLength(1 + 1000 + 1);
      expect(job.errors.at(-1).message).toMatch(/^more row errors than the 1000 listed/);
    }, 120_000);

    // The same files, dry-run and delivered, under each validation and in each status.
    const validations: [string, Record<string, unknown> | undefined][] = [
      ["reject-file (default)", undefined],
      ["skip-row", { onRowError: "skip-row" }],
      ["skip-row, maxRejectedRows 2", { onRowError: "skip-row", maxRejectedRows: 2 }],
    ];
    const files: [string, number, number][] = [
      ["clean", 3, 0],
      ["one bad row", 3, 1],
      ["three bad rows", 3, 3],
    ];
    it.each(validations)(
      "%s: the dry run and the delivered file agree on received, valid, rejected and whether the file is rejected, testing and live",
      async (_name, validation) => {
        for (const status of ["testing", "live"]) {
          const feedId = await newFeed(securitiesFeed(status, validation));
          for (const [label, good, bad] of files) {
            const file = rows(good, bad);
            const fileName = `securities-${label.replace(/ /g, "-")}.csv`;
            const dry = await dryRun(feedId, fileName, Buffer.from(file));
            expect(dry.status, dry.text).toBe(200);
            const { received, valid, rejected, verdict } = dry.body.data;
            expect({ received, valid, rejected }).toEqual({ received: good + bad, valid: good, rejected: bad });
            await upload(feedId, fileName, file);
            const job = await finished(feedId, fileName);
            const where = `${status} ${label}`;
            expect(job.counts.received, where).toBe(received);
            expect(job.counts.rejected, where).toBe(rejected);
            if (status === "live") {
              expect(job.status, where).toBe(verdict === "rejected" ? "failed" : "completed");
              expect(job.counts.accepted, where).toBe(verdict === "rejected" ? 0 : valid);
              expect(await exists(verdict === "rejected" ? "quarantine" : "archive", feedId, fileName), where).toBe(
                true,
              );
            } else {
              expect(job.status, where).toBe("completed");
              expect(job.counts.accepted, where).toBe(verdict === "rejected" ? 0 : valid);
              expect(job.errors[0].message, where).toMatch(
                verdict === "rejected"
                  ? /live, the file would be rejected/
                  : new RegExp(`live, ${valid} rows would be imported and ${rejected} rejected`),
              );
            }
          }
        }
        // reject-file rejects a file with any bad row; skip-row with maxRejectedRows 2 the one with three.
      },
      180_000,
    );
  });

  describe("finding 15: a workbook with zip64 local headers", () => {
    it("written by a streaming writer with zip64 forced: the dry run reads it, and a live feed ingests it", async () => {
      const file = readFileSync(join(__dirname, "fixtures/feeds/xlsx/positions-zip64.xlsx"));
      const isins = ["US0378331005", "CH0038863350", "DE0007164600"];
      const imported = await api("POST", "/api/v1/import/securities", {
        securities: isins.map((isin) => ({ isin, name: isin, assetClass: "equity", currency: "USD" })),
      });
      expect(imported.status, imported.text).toBe(200);
      const feedId = await newFeed({
        name: "Positions workbook (zip64)",
        provider: "Custodian",
        dataType: "securities",
        format: "xlsx",
        filePattern: "positions*.xlsx",
        options: { sheet: "Positions" },
        mapping: { isin: "ISIN", name: "Security", assetClass: { value: "equity" }, currency: { value: "USD" } },
        status: "live",
      });
      const dry = await dryRun(feedId, "positions-zip64.xlsx", file);
      expect(dry.status, dry.text).toBe(200);
      expect(dry.body.data).toMatchObject({ received: 3, valid: 3, rejected: 0, verdict: "accepted" });
      expect(dry.body.data.preview.map((r: { isin: string; name: string }) => [r.isin, r.name])).toEqual([
        ["US0378331005", "Apple Inc."],
        ["CH0038863350", "Nestlé SA"],
        ["DE0007164600", "SAP SE"],
      ]);
      await upload(feedId, "positions-zip64.xlsx", file);
      expect(await finished(feedId, "positions-zip64.xlsx")).toMatchObject({
        status: "completed",
        counts: { received: 3, accepted: 3, rejected: 0 },
      });
      expect((await api("GET", "/api/v1/securities/CH0038863350")).body.data).toMatchObject({ name: "Nestlé SA" });
    }, 120_000);
  });
});
