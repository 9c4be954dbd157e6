import { createHash } from "node:crypto";
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCosmos } from "../../../test/cosmos-stand-in";
import { Composition } from "../../composition/index";
import { parseConfig } from "../../config";
import { AppError } from "../../domain/errors";
import type { EventEnvelope } from "../../domain/events";
import { feedCreateSchema, type StoredFeed } from "../../domain/feed";
import type { Job } from "../../domain/job";
import { feedFileReaders } from "../../formats/feed-file-readers";
import { Logger } from "../../logging";
import type { FeedRepository } from "../../ports/feed-repository";
import type { FileStore } from "../../ports/file-store";
import type { IngestAttempts } from "../../ports/ingest-attempts";
import type { JobRepository } from "../../ports/investment-repositories";
import type { Outbox } from "../../ports/outbox";
import type { DataQualityExceptions } from "../investments/data-quality-exceptions";
import { ImportRecords } from "../investments/import/import-records";
import { fileJobId, IngestFile, MAX_UNFINISHED_ATTEMPTS, type IngestFileDeps } from "./ingest-file";

const feed: StoredFeed = {
  ...(feedCreateSchema.parse({
    name: "securities",
    provider: "p",
    dataType: "securities",
    format: "csv",
    filePattern: "securities-*.csv",
    mapping: { isin: "ISIN", name: "Name", assetClass: "Class", currency: "Ccy" },
    status: "live",
  }) as Omit<StoredFeed, "id" | "sftp" | "createdAt" | "updatedAt">),
  id: "fd_1",
  sftp: { username: "feed-1", publicKeys: [], passwordHash: "x" },
  createdAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:00:00.000Z",
};

const CONTENT = "ISIN,Name,Class,Ccy\nGB0002634946,BAE,equity,GBP\nGB0007980591,BP,equity,GBP\n";

/**
 * In-memory stores; `failures` makes the named step throw once, as a crashed process would stop there.
 * `stalls.reads` makes that many reads of an inbound file deliver its bytes but never end, as a process
 * that dies while reading leaves an attempt that never finishes.
 */
function world(failures: Set<"move" | "import">, overrides: Partial<IngestFileDeps> = {}) {
  const stalls = { reads: 0 };
  let time = Date.parse("2026-02-01T10:00:00.000Z");
  const clock = { now: () => new Date((time += 1000)) };
  type File = { content: string; lastModified: Date; metadata?: Record<string, string> };
  const containers = new Map<string, Map<string, File>>([
    ["inbound", new Map()],
    ["archive", new Map()],
    ["quarantine", new Map()],
  ]);
  const bin = (c: string) => containers.get(c) as Map<string, File>;
  const files: FileStore = {
    info: async (c, n) => {
      const f = bin(c).get(n);
      return f === undefined
        ? undefined
        : { size: f.content.length, lastModified: f.lastModified, metadata: f.metadata ?? {} };
    },
    read: async (c, n) => {
      const f = bin(c).get(n);
      if (f === undefined) return undefined;
      if (c === "inbound" && stalls.reads > 0) {
        stalls.reads -= 1;
        const stalled = new Readable({ read() {} });
        stalled.push(Buffer.from(f.content));
        return stalled;
      }
      return Readable.from([Buffer.from(f.content)]);
    },
    copy: async (from, n, to, toName, metadata) => {
      const f = bin(from).get(n);
      if (f === undefined) return "gone";
      if (bin(to).has(toName)) return "present";
      bin(to).set(toName, { ...f, metadata: { ...f.metadata, ...metadata } });
      return "copied";
    },
    move: async (from, n, to) => {
      if (failures.delete("move")) throw new Error("crash before the move");
      const f = bin(from).get(n);
      if (f === undefined) return;
      bin(to).set(n, f);
      bin(from).delete(n);
    },
  };
  const jobs = new Map<string, Job>();
  const jobRepository = {
    put: async (j: Job) => void jobs.set(j.id, j),
    get: async (id: string) => jobs.get(id),
  } as unknown as JobRepository;
  const unfinished = new Map<string, number>();
  const attempts: IngestAttempts = {
    begin: async (version) => {
      unfinished.set(version, (unfinished.get(version) ?? 0) + 1);
      return unfinished.get(version) ?? 0;
    },
    end: async (version) => void unfinished.delete(version),
  };
  const events: EventEnvelope[] = [];
  const outbox = { append: async (e: readonly EventEnvelope[]) => void events.push(...e) } as unknown as Outbox;
  const imports: { jobId: string | undefined; records: number }[] = [];
  const importer: Pick<ImportRecords, "execute"> = {
    execute: async (request) => {
      const { dataType, origin } = request;
      const records = "checked" in request ? request.checked : [];
      const id = origin?.jobId ?? "job_random";
      imports.push({ jobId: origin?.jobId, records: records.length });
      const running: Job = {
        id,
        source: origin?.source ?? "api",
        dataType,
        feedId: origin?.feedId ?? null,
        fileName: origin?.fileName ?? null,
        status: "running",
        counts: { received: records.length, accepted: 0, rejected: 0, removed: 0 },
        errors: [],
        startedAt: clock.now().toISOString(),
        completedAt: null,
        leaseUntil: clock.now().toISOString(),
      };
      jobs.set(id, running);
      if (failures.delete("import")) throw new Error("crash during the import");
      jobs.set(id, {
        ...running,
        status: "completed",
        counts: { ...running.counts, accepted: records.length },
        completedAt: clock.now().toISOString(),
        leaseUntil: null,
      });
      return {
        jobId: id,
        dataType,
        received: records.length,
        created: records.length,
        updated: 0,
        unchanged: 0,
        removed: 0,
      };
    },
  };
  const deps: IngestFileDeps = {
    feeds: { get: async (id: string) => (id === feed.id ? feed : undefined) } as unknown as FeedRepository,
    files,
    readers: feedFileReaders,
    jobs: jobRepository,
    outbox,
    dataQuality: { open: async () => 0 } as unknown as DataQualityExceptions,
    importer,
    attempts,
    clock,
    log: new Logger("error", () => undefined),
    ...overrides,
  };
  const upload = (name: string, content: string, metadata?: Record<string, string>): void =>
    void bin("inbound").set(name, {
      content,
      lastModified: clock.now(),
      ...(metadata !== undefined ? { metadata } : {}),
    });
  return { ingest: new IngestFile(deps), deps, upload, jobs, imports, events, bin, failures, stalls, unfinished };
}

describe("IngestFile: a re-run of the same blob doubles nothing", () => {
  it("a crash after the import, before the file was archived: the re-run only archives it", async () => {
    const w = world(new Set(["move"]));
    w.upload("fd_1/securities-1.csv", CONTENT);
    await expect(w.ingest.execute("fd_1/securities-1.csv")).rejects.toThrow("crash before the move");
    const again = await w.ingest.execute("fd_1/securities-1.csv");
    expect(again.action).toBe("rerun");
    expect(w.imports).toHaveLength(1);
    expect([...w.jobs.values()]).toHaveLength(1);
    expect(w.bin("archive").has("fd_1/securities-1.csv")).toBe(true);
    expect(w.bin("inbound").size).toBe(0);
  });

  it("a crash during the import: the re-run imports again under the same job, which ends completed", async () => {
    const w = world(new Set(["import"]));
    w.upload("fd_1/securities-1.csv", CONTENT);
    await expect(w.ingest.execute("fd_1/securities-1.csv")).rejects.toThrow("crash during the import");
    const [crashed] = [...w.jobs.values()];
    expect(crashed?.status).toBe("running");
    const again = await w.ingest.execute("fd_1/securities-1.csv");
    expect(again).toEqual({ action: "ingested", jobId: crashed?.id });
    expect(w.imports.map((i) => i.jobId)).toEqual([crashed?.id, crashed?.id]);
    expect([...w.jobs.values()].map((j) => j.status)).toEqual(["completed"]);
  });

  it("the same content uploaded again later is a duplicate naming the first job; a re-run of that upload makes no second duplicate", async () => {
    const w = world(new Set());
    w.upload("fd_1/securities-1.csv", CONTENT);
    const first = await w.ingest.execute("fd_1/securities-1.csv");
    w.upload("fd_1/securities-2.csv", CONTENT);
    w.failures.add("move");
    await expect(w.ingest.execute("fd_1/securities-2.csv")).rejects.toThrow("crash before the move");
    const dup = await w.ingest.execute("fd_1/securities-2.csv");
    expect(dup.action).toBe("duplicate");
    const job = w.jobs.get((dup as { jobId: string }).jobId);
    expect(job).toMatchObject({
      status: "completed",
      counts: { accepted: 0 },
      duplicateOf: (first as { jobId: string }).jobId,
    });
    expect(w.imports).toHaveLength(1);
    expect(w.jobs.size).toBe(2);
    expect(w.bin("archive").has("fd_1/securities-2.csv")).toBe(true);
    // Announced once: the outbox keeps one event per id, and the re-run's event has the same id.
    expect(new Set(w.events.map((e) => e.id)).size).toBe(1);
  });
});

describe("IngestFile: a file processed again (copied back with the jobs in its metadata)", () => {
  it("gets the job its request named and is no duplicate of its content; a crash before the move only archives it on the re-run", async () => {
    const w = world(new Set());
    w.upload("fd_1/securities-1.csv", CONTENT);
    const first = await w.ingest.execute("fd_1/securities-1.csv");
    expect(first.action).toBe("ingested");
    const again = "fd_1/.reprocess/job_again/securities-1.csv";
    w.upload(again, CONTENT, { reprocessjob: "job_again", reprocessof: "job_failed", sourcename: "securities-1.csv" });
    w.failures.add("move");
    await expect(w.ingest.execute(again)).rejects.toThrow("crash before the move");
    expect(w.imports.map((i) => i.jobId)).toEqual([(first as { jobId: string }).jobId, "job_again"]);
    expect(w.jobs.get("job_again")).toMatchObject({ status: "completed", fileName: "securities-1.csv" });
    expect(w.jobs.get("job_again")?.duplicateOf).toBeUndefined();
    expect(await w.ingest.execute(again)).toEqual({ action: "rerun", jobId: "job_again" });
    expect(w.imports).toHaveLength(2);
    expect(w.bin("archive").has(again)).toBe(true);
  });
});

describe("IngestFile: the job id is the feed's and the whole content's SHA-256, whichever way the file ends", () => {
  const sha = (text: string): string => createHash("sha256").update(text).digest("hex");
  // More bad rows than errors are listed: the file is read, counted and hashed to its end.
  const manyBad = `ISIN,Name,Class,Ccy\n${Array.from({ length: 1500 }, (_, i) => `XX${i},Bad,equity,GBP`).join("\n")}\n`;
  const unreadable = 'ISIN,Name,Class,Ccy\nGB0002634946,"BAE,equity,GBP\n';

  it.each([
    ["accepted", CONTENT, "ingested"],
    ["rejected, with more errors than listed", manyBad, "rejected"],
    ["unreadable", unreadable, "rejected"],
  ])("%s", async (_case, content, action) => {
    const w = world(new Set());
    w.upload("fd_1/securities-h.csv", content);
    const outcome = await w.ingest.execute("fd_1/securities-h.csv");
    expect(outcome).toEqual({ action, jobId: fileJobId("fd_1", "live", sha(content)) });
  });
});

describe("IngestFile: counts are the whole file's; only the listed errors are capped", () => {
  it("1,500 rows with 2 errors each: the failed job counts 1,500 received and rejected, lists 1,000 errors and says there are more", async () => {
    const w = world(new Set());
    w.upload(
      "fd_1/securities-e.csv",
      `ISIN,Name,Class,Ccy\n${Array.from({ length: 1500 }, (_, i) => `XX${i},Bad,metal,GBP`).join("\n")}\n`,
    );
    const outcome = await w.ingest.execute("fd_1/securities-e.csv");
    const job = w.jobs.get((outcome as { jobId: string }).jobId);
    expect(job).toMatchObject({
      status: "failed",
      counts: { received: 1500, accepted: 0, rejected: 1500, removed: 0 },
    });
    expect(job?.errors[0]).toEqual({
      field: "file",
      message: "1500 rows rejected; the feed rejects the whole file on any row error",
    });
    expect(job?.errors.slice(1, 3).map((e) => e.field)).toEqual(["isin", "assetClass"]);
    expect(job?.errors).toHaveLength(1 + 1000 + 1);
    expect(job?.errors.at(-1)).toEqual({
      field: "",
      message: "more row errors than the 1000 listed; counts.rejected counts every rejected row",
    });
  });
});

describe("IngestFile: the crash guard (attempts that started and never finished)", () => {
  /** Starts an attempt that stalls mid-file and is never heard of again, as one whose process died. */
  const stalledAttempt = async (w: ReturnType<typeof world>, name: string): Promise<void> => {
    w.stalls.reads += 1;
    void w.ingest.execute(name);
    // The attempt is recorded before the file is read: once its read has begun, it is there.
    await expect.poll(() => w.stalls.reads, { timeout: 5_000, interval: 5 }).toBe(0);
  };

  it("one attempt that never finished: the next ingests the file, once, and the attempt is forgotten", async () => {
    const w = world(new Set());
    w.upload("fd_1/securities-c1.csv", CONTENT);
    await stalledAttempt(w, "fd_1/securities-c1.csv");
    expect([...w.unfinished.values()]).toEqual([1]);
    expect(await w.ingest.execute("fd_1/securities-c1.csv")).toMatchObject({ action: "ingested" });
    expect(w.imports).toHaveLength(1);
    expect(w.unfinished.size).toBe(0);
    expect(w.bin("archive").has("fd_1/securities-c1.csv")).toBe(true);
  });

  it(`${MAX_UNFINISHED_ATTEMPTS} attempts that never finished: the next quarantines the file with a failed job saying it crashed repeatedly`, async () => {
    const w = world(new Set());
    w.upload("fd_1/securities-c2.csv", CONTENT);
    for (let i = 0; i < MAX_UNFINISHED_ATTEMPTS; i += 1) await stalledAttempt(w, "fd_1/securities-c2.csv");
    const outcome = await w.ingest.execute("fd_1/securities-c2.csv");
    expect(outcome).toEqual({
      action: "rejected",
      jobId: fileJobId("fd_1", "live", createHash("sha256").update(CONTENT).digest("hex")),
    });
    const job = w.jobs.get((outcome as { jobId: string }).jobId);
    expect(job).toMatchObject({
      status: "failed",
      fileName: "securities-c2.csv",
      counts: { received: 0, accepted: 0, rejected: 0, removed: 0 },
    });
    expect(job?.errors).toEqual([
      {
        field: "file",
        message: `ingestion of this file crashed repeatedly: ${MAX_UNFINISHED_ATTEMPTS} attempts started and none finished (each ended the process running it, e.g. out of memory or killed); the file is quarantined and not tried again`,
      },
    ]);
    expect(w.imports).toHaveLength(0);
    expect(w.bin("quarantine").has("fd_1/securities-c2.csv")).toBe(true);
    expect(w.bin("inbound").size).toBe(0);
    expect(w.events.map((e) => e.event)).toEqual(["refresh_job.failed"]);
    expect(w.unfinished.size).toBe(0);
  });

  it("an import left running by the interrupted attempts is the job that fails, keeping what it stored", async () => {
    const w = world(new Set());
    w.upload("fd_1/securities-c3.csv", CONTENT);
    const jobId = fileJobId("fd_1", "live", createHash("sha256").update(CONTENT).digest("hex"));
    w.jobs.set(jobId, {
      id: jobId,
      source: "blob",
      dataType: "securities",
      feedId: "fd_1",
      fileName: "securities-c3.csv",
      status: "running",
      counts: { received: 2, accepted: 1, rejected: 0, removed: 0 },
      errors: [],
      startedAt: "2026-02-01T09:00:00.000Z",
      completedAt: null,
      leaseUntil: "2026-02-01T09:05:00.000Z",
    });
    for (let i = 0; i < MAX_UNFINISHED_ATTEMPTS; i += 1) await stalledAttempt(w, "fd_1/securities-c3.csv");
    await w.ingest.execute("fd_1/securities-c3.csv");
    expect(w.jobs.get(jobId)).toMatchObject({
      status: "failed",
      counts: { received: 2, accepted: 1, rejected: 0, removed: 0 },
      startedAt: "2026-02-01T09:00:00.000Z",
      leaseUntil: null,
    });
  });

  it("attempts that fail with an error (not a crash) are not counted: the host's retry ingests the file", async () => {
    const w = world(new Set());
    w.upload("fd_1/securities-c4.csv", CONTENT);
    for (let i = 0; i <= MAX_UNFINISHED_ATTEMPTS; i += 1) {
      w.failures.add("import");
      await expect(w.ingest.execute("fd_1/securities-c4.csv")).rejects.toThrow("crash during the import");
    }
    expect(await w.ingest.execute("fd_1/securities-c4.csv")).toMatchObject({ action: "ingested" });
  });
});

describe("IngestFile: an import call refusing its rows after earlier calls stored theirs", () => {
  it("the failed job counts what was stored, says so, and names the file's rows in the refusal", async () => {
    const w = world(new Set(), { batchSize: 2 });
    const stores = w.deps.importer;
    let calls = 0;
    // The second call is refused, as the import service refuses a record naming an unknown security.
    w.deps.importer = {
      execute: async (request) => {
        calls += 1;
        if (calls === 2)
          throw new AppError("VALIDATION_ERROR", "The import has invalid records", {
            details: [
              { field: "securities[1].isin", message: "security 'GB0009252882' does not exist; import it first" },
            ],
          });
        return stores.execute(request);
      },
    };
    const rows = [
      "GB0002634946,BAE,equity,GBP",
      "GB0007980591,BP,equity,GBP",
      "US0378331005,Apple,equity,USD",
      "GB0009252882,GSK,equity,GBP",
      "GB0031348658,Barclays,equity,GBP",
    ];
    w.upload("fd_1/securities-r.csv", `ISIN,Name,Class,Ccy\n${rows.join("\n")}\n`);
    const outcome = await w.ingest.execute("fd_1/securities-r.csv");
    expect(outcome.action).toBe("rejected");
    const job = w.jobs.get((outcome as { jobId: string }).jobId);
    expect(job).toMatchObject({ status: "failed", counts: { received: 5, accepted: 2, rejected: 0, removed: 0 } });
    expect(job?.errors[0]?.message).toMatch(/2 rows of the file's earlier import calls were stored/);
    expect(job?.errors[1]).toEqual({
      field: "isin",
      message: "row 4: security 'GB0009252882' does not exist; import it first",
    });
    expect(w.bin("quarantine").has("fd_1/securities-r.csv")).toBe(true);
  });
});

describe("IngestFile with the import service (Cosmos stand-in): a file in several import calls is one job", () => {
  const KEY = "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==";
  let cosmos: Awaited<ReturnType<typeof startCosmos>>;
  let app: Composition;
  beforeAll(async () => {
    cosmos = await startCosmos();
    const config = parseConfig({
      COSMOS_ENDPOINT: cosmos.endpoint,
      COSMOS_KEY: KEY,
      COSMOS_DATABASE: "unit",
      COSMOS_ENDPOINT_DISCOVERY: "false",
      JWT_SIGNING_KEY: Buffer.alloc(32, 7).toString("base64"),
      WEBHOOK_SECRET_KEY: Buffer.alloc(32, 9).toString("base64"),
    });
    app = new Composition(config);
  });
  afterAll(async () => cosmos.stop());

  it("five rows in batches of two: three calls, one job whose counts sum them, one refresh_job.completed", async () => {
    const events: EventEnvelope[] = [];
    const stored = app.core.outbox();
    const outbox = {
      ...stored,
      append: async (e: readonly EventEnvelope[]) => {
        events.push(...e);
        await stored.append(e);
      },
    };
    const importer = new ImportRecords({
      portfolios: app.investments.portfolioRepository(),
      securities: app.investments.securityRepository(),
      prices: app.investments.priceRepository(),
      fxRates: app.investments.fxRateRepository(),
      positions: app.investments.positionRepository(),
      transactions: app.investments.transactionRepository(),
      jobs: app.investments.jobRepository(),
      outbox,
      dataQuality: app.investments.dataQualityExceptions(),
      messageBus: { send: async () => {} },
      clock: { now: () => new Date() },
      priceJumpThreshold: 0.25,
    });
    const calls: boolean[] = [];
    const counting: Pick<ImportRecords, "execute"> = {
      execute: (request) => {
        calls.push(request.origin?.part?.last ?? true);
        return importer.execute(request);
      },
    };
    const w = world(new Set(), { jobs: app.investments.jobRepository(), importer: counting, batchSize: 2, outbox });
    const rows = [
      "GB0002634946,BAE,equity,GBP",
      "GB0007980591,BP,equity,GBP",
      "GB0009252882,GSK,equity,GBP",
      "GB0031348658,Barclays,equity,GBP",
      "US0378331005,Apple,equity,USD",
    ];
    w.upload("fd_1/securities-5.csv", `ISIN,Name,Class,Ccy\n${rows.join("\n")}\nXX,Bad,equity,GBP\n`);
    // The feed rejects the whole file on a bad row: no import call at all.
    const outcome = await w.ingest.execute("fd_1/securities-5.csv");
    expect(outcome.action).toBe("rejected");
    expect(calls).toEqual([]);

    const good = "fd_1/securities-6.csv";
    w.upload(good, `ISIN,Name,Class,Ccy\n${rows.join("\n")}\n`);
    const done = await w.ingest.execute(good);
    expect(done.action).toBe("ingested");
    expect(calls).toEqual([false, false, true]);
    const job = await app.investments.jobRepository().get((done as { jobId: string }).jobId);
    expect(job).toMatchObject({
      status: "completed",
      source: "blob",
      feedId: "fd_1",
      fileName: "securities-6.csv",
      counts: { received: 5, accepted: 5, rejected: 0, removed: 0 },
      leaseUntil: null,
    });
    expect(
      events
        .filter((e) => e.event.startsWith("refresh_job.") && (e.data as { jobId: string }).jobId === job?.id)
        .map((e) => e.event),
    ).toEqual(["refresh_job.completed"]);
    expect(await app.investments.securityRepository().get("sec_US0378331005")).toBeDefined();
  }, 30_000);
});

describe("IngestFile: the channel and the name a job shows", () => {
  it("a blob source's copy is named as in the customer's container, not by its version folder", async () => {
    const w = world(new Set());
    w.upload("fd_1/0123456789abcdef/in/securities-7.csv", CONTENT, {
      source: "blob",
      sourcename: encodeURIComponent("in/securities-7.csv"),
    });
    const outcome = await w.ingest.execute("fd_1/0123456789abcdef/in/securities-7.csv");
    expect(outcome.action).toBe("ingested");
    expect(w.jobs.get((outcome as { jobId: string }).jobId)).toMatchObject({
      source: "blob",
      fileName: "in/securities-7.csv",
      status: "completed",
    });
  });

  it("a file without source metadata is a blob upload, or an SFTP upload where the SFTP endpoint writes none (Azure)", async () => {
    const local = world(new Set());
    local.upload("fd_1/securities-8.csv", CONTENT);
    const uploaded = await local.ingest.execute("fd_1/securities-8.csv");
    expect(local.jobs.get((uploaded as { jobId: string }).jobId)).toMatchObject({
      source: "blob",
      fileName: "securities-8.csv",
    });

    const azure = world(new Set(), { unlabelledSource: "sftp" });
    azure.upload("fd_1/securities-8.csv", CONTENT);
    const dropped = await azure.ingest.execute("fd_1/securities-8.csv");
    expect(azure.jobs.get((dropped as { jobId: string }).jobId)).toMatchObject({
      source: "sftp",
      fileName: "securities-8.csv",
    });
    azure.upload("fd_1/securities-9.csv", CONTENT.replace("BAE", "BAE Systems"), { source: "blob" });
    const copied = await azure.ingest.execute("fd_1/securities-9.csv");
    expect(azure.jobs.get((copied as { jobId: string }).jobId)).toMatchObject({ source: "blob" });
  });
});

describe("IngestFile: a file whose name no store can hold", () => {
  it("is refused unread with a failed job quoting the name escaped, and quarantined, whatever the feed's status; a repeated event makes no second job", async () => {
    for (const status of ["live", "paused"] as const) {
      const w = world(new Set(), {
        feeds: {
          get: async (id: string) => (id === feed.id ? { ...feed, status } : undefined),
        } as unknown as FeedRepository,
      });
      for (const name of [
        "fd_1/securities-a\uFFFEb.csv",
        "fd_1/securities-\u{10FFFF}.csv",
        "fd_1/securities-\uFFFD.csv",
      ])
        w.upload(name, CONTENT);
      const outcomes = [];
      for (const name of [...w.bin("inbound").keys()]) outcomes.push(await w.ingest.execute(name));
      expect(outcomes.map((o) => o.action)).toEqual(["rejected", "rejected", "rejected"]);
      expect(w.imports).toEqual([]);
      expect([...w.jobs.values()].map((j) => [j.fileName, j.status, j.errors[0]?.message])).toEqual([
        [
          "securities-a\\u{fffe}b.csv",
          "failed",
          expect.stringMatching(
            /^the file name holds the Unicode noncharacter U\+FFFE, which no store can hold: the file was not read and is quarantined/,
          ),
        ],
        ["securities-\\u{10ffff}.csv", "failed", expect.stringMatching(/noncharacter U\+10FFFF/)],
        ["securities-\\u{fffd}.csv", "failed", expect.stringMatching(/U\+FFFD \(what invalid UTF-8/)],
      ]);
      expect(w.events.map((e) => e.event)).toEqual(["refresh_job.failed", "refresh_job.failed", "refresh_job.failed"]);
      expect(w.bin("inbound").size).toBe(0);
      expect(w.bin("quarantine").size).toBe(3);
      // The same event again: the file is gone, no second job.
      expect((await w.ingest.execute("fd_1/securities-a\uFFFEb.csv")).action).toBe("gone");
      expect(w.jobs.size).toBe(3);
    }
  });
});
