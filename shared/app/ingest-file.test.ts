import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import type { EventEnvelope } from "../domain/events";
import { feedCreateSchema, type StoredFeed } from "../domain/feed";
import type { Job } from "../domain/job";
import { Logger } from "../logging";
import type { FeedRepository } from "../ports/feed-repository";
import type { FileStore } from "../ports/file-store";
import type { JobRepository } from "../ports/investment-repositories";
import type { Outbox } from "../ports/outbox";
import type { DataQualityExceptions } from "./data-quality-exceptions";
import type { ImportService } from "./import/import-service";
import { IngestFile, type IngestDeps } from "./ingest-file";

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

/** In-memory stores; `failures` makes the named step throw once, as a crashed process would stop there. */
function world(failures: Set<"move" | "import">) {
  let time = Date.parse("2026-02-01T10:00:00.000Z");
  const clock = { now: () => new Date((time += 1000)) };
  const containers = new Map<string, Map<string, { content: string; lastModified: Date }>>([["inbound", new Map()], ["archive", new Map()], ["quarantine", new Map()]]);
  const bin = (c: string) => containers.get(c) as Map<string, { content: string; lastModified: Date }>;
  const files: FileStore = {
    info: async (c, n) => {
      const f = bin(c).get(n);
      return f === undefined ? undefined : { size: f.content.length, lastModified: f.lastModified, metadata: {} };
    },
    read: async (c, n) => {
      const f = bin(c).get(n);
      return f === undefined ? undefined : Readable.from([Buffer.from(f.content)]);
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
  const jobRepository = { put: async (j: Job) => void jobs.set(j.id, j), get: async (id: string) => jobs.get(id) } as unknown as JobRepository;
  const events: EventEnvelope[] = [];
  const outbox = { append: async (e: readonly EventEnvelope[]) => void events.push(...e) } as unknown as Outbox;
  const imports: { jobId: string | undefined; records: number }[] = [];
  const importer: Pick<ImportService, "execute"> = {
    execute: async (dataType, body, origin) => {
      const records = (body as Record<string, unknown[]>)["securities"] ?? [];
      const id = origin?.jobId ?? "job_random";
      imports.push({ jobId: origin?.jobId, records: records.length });
      const running: Job = { id, source: origin?.source ?? "api", dataType, feedId: origin?.feedId ?? null, fileName: origin?.fileName ?? null, status: "running", counts: { received: records.length, accepted: 0, rejected: 0 }, errors: [], startedAt: clock.now().toISOString(), completedAt: null, leaseUntil: clock.now().toISOString() };
      jobs.set(id, running);
      if (failures.delete("import")) throw new Error("crash during the import");
      jobs.set(id, { ...running, status: "completed", counts: { ...running.counts, accepted: records.length }, completedAt: clock.now().toISOString(), leaseUntil: null });
      return { jobId: id, dataType, received: records.length, created: records.length, updated: 0, unchanged: 0 };
    },
  };
  const deps: IngestDeps = {
    feeds: { get: async (id: string) => (id === feed.id ? feed : undefined) } as unknown as FeedRepository,
    files,
    jobs: jobRepository,
    outbox,
    dataQuality: { open: async () => 0 } as unknown as DataQualityExceptions,
    importer,
    clock,
    log: new Logger("error", () => undefined),
  };
  const upload = (name: string, content: string): void => void bin("inbound").set(name, { content, lastModified: clock.now() });
  return { ingest: new IngestFile(deps), upload, jobs, imports, events, bin, failures };
}

describe("IngestFile: a re-run of the same blob doubles nothing", () => {
  it("a crash after the import, before the file was archived: the re-run only archives it", async () => {
    const w = world(new Set(["move"]));
    w.upload("fd_1/securities-1.csv", CONTENT);
    await expect(w.ingest.run("fd_1/securities-1.csv")).rejects.toThrow("crash before the move");
    const again = await w.ingest.run("fd_1/securities-1.csv");
    expect(again.action).toBe("rerun");
    expect(w.imports).toHaveLength(1);
    expect([...w.jobs.values()]).toHaveLength(1);
    expect(w.bin("archive").has("fd_1/securities-1.csv")).toBe(true);
    expect(w.bin("inbound").size).toBe(0);
  });

  it("a crash during the import: the re-run imports again under the same job, which ends completed", async () => {
    const w = world(new Set(["import"]));
    w.upload("fd_1/securities-1.csv", CONTENT);
    await expect(w.ingest.run("fd_1/securities-1.csv")).rejects.toThrow("crash during the import");
    const [crashed] = [...w.jobs.values()];
    expect(crashed?.status).toBe("running");
    const again = await w.ingest.run("fd_1/securities-1.csv");
    expect(again).toEqual({ action: "ingested", jobId: crashed?.id });
    expect(w.imports.map((i) => i.jobId)).toEqual([crashed?.id, crashed?.id]);
    expect([...w.jobs.values()].map((j) => j.status)).toEqual(["completed"]);
  });

  it("the same content uploaded again later is a duplicate naming the first job; a re-run of that upload makes no second duplicate", async () => {
    const w = world(new Set());
    w.upload("fd_1/securities-1.csv", CONTENT);
    const first = await w.ingest.run("fd_1/securities-1.csv");
    w.upload("fd_1/securities-2.csv", CONTENT);
    w.failures.add("move");
    await expect(w.ingest.run("fd_1/securities-2.csv")).rejects.toThrow("crash before the move");
    const dup = await w.ingest.run("fd_1/securities-2.csv");
    expect(dup.action).toBe("duplicate");
    const job = w.jobs.get((dup as { jobId: string }).jobId);
    expect(job).toMatchObject({ status: "completed", counts: { accepted: 0 }, duplicateOf: (first as { jobId: string }).jobId });
    expect(w.imports).toHaveLength(1);
    expect(w.jobs.size).toBe(2);
    expect(w.bin("archive").has("fd_1/securities-2.csv")).toBe(true);
    // Announced once: the outbox keeps one event per id, and the re-run's event has the same id.
    expect(new Set(w.events.map((e) => e.id)).size).toBe(1);
  });
});
