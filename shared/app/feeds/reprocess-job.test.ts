import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import type { StoredFeed } from "../../domain/feed";
import type { Job } from "../../domain/job";
import type { FeedRepository } from "../../ports/feed-repository";
import type { FileStore } from "../../ports/file-store";
import type { JobRepository } from "../../ports/investment-repositories";
import { sha256Of } from "./file-hashing";
import { ReprocessJob } from "./reprocess-job";

const CONTENT = "ISIN,Name\nGB0002634946,BAE\n";

async function world(failed: Partial<Job> = {}) {
  const stored = new Map<string, { content: string; metadata: Record<string, string> }>();
  const key = (c: string, n: string) => `${c}/${n}`;
  stored.set(key("quarantine", "fd_1/securities-1.csv"), { content: CONTENT, metadata: { source: "sftp" } });
  const files = {
    info: async (c: string, n: string) => {
      const f = stored.get(key(c, n));
      return f && { size: f.content.length, lastModified: new Date(0), metadata: f.metadata };
    },
    read: async (c: string, n: string) => {
      const f = stored.get(key(c, n));
      return f && Readable.from([Buffer.from(f.content)]);
    },
    copy: async (from: string, n: string, to: string, toName: string, metadata: Record<string, string>) => {
      const f = stored.get(key(from, n));
      if (f === undefined) return "gone" as const;
      if (stored.has(key(to, toName))) return "present" as const;
      stored.set(key(to, toName), { content: f.content, metadata: { ...f.metadata, ...metadata } });
      return "copied" as const;
    },
  } as unknown as FileStore;
  const jobs = new Map<string, Job>();
  const original: Job = {
    id: "job_failed",
    source: "sftp",
    dataType: "securities",
    feedId: "fd_1",
    fileName: "securities-1.csv",
    status: "failed",
    counts: { received: 1, accepted: 0, rejected: 0, removed: 0 },
    errors: [{ field: "file", message: "the mapped column is missing" }],
    startedAt: "2026-11-29T10:00:00.000Z",
    completedAt: "2026-11-29T10:00:01.000Z",
    leaseUntil: null,
    file: {
      container: "quarantine",
      name: "fd_1/securities-1.csv",
      sha256: await sha256Of(Readable.from([Buffer.from(CONTENT)])),
    },
    ...failed,
  };
  jobs.set(original.id, original);
  const jobRepository = {
    get: async (id: string) => jobs.get(id),
    put: async (job: Job) => void jobs.set(job.id, job),
  } as unknown as JobRepository;
  const feed = { id: "fd_1", dataType: "securities", status: "live" } as unknown as StoredFeed;
  const feeds = { get: async (id: string) => (id === "fd_1" ? feed : undefined) } as unknown as FeedRepository;
  const clock = { now: () => new Date("2026-11-29T10:05:00.000Z") };
  return { reprocess: new ReprocessJob({ jobs: jobRepository, files, feeds, clock }), stored, jobs };
}

describe("ReprocessJob", () => {
  it("copies the quarantined file into the feed's inbox naming both jobs; the same request again is the same job and copy", async () => {
    const w = await world();
    const job = await w.reprocess.execute("job_failed", "request-1");
    expect(job).toMatchObject({
      status: "running",
      reprocessOf: "job_failed",
      feedId: "fd_1",
      fileName: "securities-1.csv",
    });
    const inbound = [...w.stored.entries()].filter(([k]) => k.startsWith("inbound/"));
    expect(inbound).toEqual([
      [
        `inbound/fd_1/.reprocess/${job.id}/securities-1.csv`,
        {
          content: CONTENT,
          metadata: { source: "sftp", reprocessof: "job_failed", reprocessjob: job.id, sourcename: "securities-1.csv" },
        },
      ],
    ]);
    expect(await w.reprocess.execute("job_failed", "request-1")).toEqual(job);
    expect([...w.stored.keys()].filter((k) => k.startsWith("inbound/"))).toHaveLength(1);
    // Another request is another job.
    expect((await w.reprocess.execute("job_failed", "request-2")).id).not.toBe(job.id);
  });

  it("refuses what cannot be processed again, and a file replaced by another of the same name", async () => {
    await expect((await world({ status: "running" })).reprocess.execute("job_failed", "r")).rejects.toMatchObject({
      code: "CONFLICT",
    });
    await expect((await world({ feedId: null })).reprocess.execute("job_failed", "r")).rejects.toMatchObject({
      code: "VALIDATION_ERROR",
    });
    const replaced = await world();
    replaced.stored.set("quarantine/fd_1/securities-1.csv", { content: "other,content\n", metadata: {} });
    await expect(replaced.reprocess.execute("job_failed", "r")).rejects.toMatchObject({ code: "CONFLICT" });
    expect([...replaced.jobs.keys()]).toEqual(["job_failed"]);
  });
});
