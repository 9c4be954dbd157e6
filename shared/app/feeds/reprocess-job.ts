import { AppError } from "../../domain/errors";
import { leaseFrom, type Job } from "../../domain/job";
import type { Clock } from "../../ports/clock";
import type { FeedRepository } from "../../ports/feed-repository";
import type { FileStore } from "../../ports/file-store";
import type { JobRepository } from "../../ports/investment-repositories";
import { hashOf, INBOUND } from "./ingest-file-parts";
import { findJobFile } from "./job-file";

/** The folder of an inbox that files processed again are copied to: no provider's upload lands there. */
export const REPROCESS_FOLDER = ".reprocess";

/**
 * "Process again": a failed feed job's quarantined file goes back to ingestion as a new job (its id
 * from the request, `reprocessOf` naming the failed job), read with the feed's mapping as it is now.
 * The file is copied into the feed's inbox with metadata naming both jobs; ingestion picks it up as
 * it does any written file (the storage event), gives it that job and does not count it a duplicate.
 * The quarantined file stays, so the failed job keeps its download. The same request (its id)
 * repeated after a crash lands on the same job and the same copy: nothing is doubled.
 */
export class ReprocessJob {
  constructor(private readonly deps: { jobs: JobRepository; files: FileStore; feeds: FeedRepository; clock: Clock }) {}

  async execute(jobId: string, requestId: string): Promise<Job> {
    const original = await this.deps.jobs.get(jobId);
    if (original === undefined) throw new AppError("NOT_FOUND", `Job '${jobId}' was not found`);
    if (original.feedId === null)
      throw new AppError("VALIDATION_ERROR", "Only a feed's file can be processed again; this job was an API import", {
        details: [{ field: "jobId", message: "not a feed job" }],
      });
    if (original.status !== "failed")
      throw new AppError(
        "CONFLICT",
        original.status === "running"
          ? "The job is still running; a file is processed again once its job has failed"
          : "The job completed; only a failed job's file is processed again",
      );
    const feed = await this.deps.feeds.get(original.feedId);
    if (feed === undefined) throw new AppError("CONFLICT", `The job's feed '${original.feedId}' no longer exists`);
    if (feed.status === "paused")
      throw new AppError("CONFLICT", "The feed is paused; resume it before processing the file again");
    let found;
    try {
      found = await findJobFile(this.deps, jobId);
    } catch (error) {
      if (error instanceof AppError && error.code === "NOT_FOUND")
        throw new AppError("CONFLICT", "The service no longer keeps this job's file; it cannot be processed again");
      throw error;
    }
    const id = `job_${hashOf(jobId, "reprocess", requestId).slice(0, 24)}`;
    const now = this.deps.clock.now();
    // The same request again (after a crash, say) continues its job instead of starting another.
    const job: Job = (await this.deps.jobs.get(id)) ?? {
      id,
      source: original.source,
      dataType: feed.dataType,
      feedId: original.feedId,
      fileName: original.fileName,
      reprocessOf: jobId,
      status: "running",
      counts: { received: 0, accepted: 0, rejected: 0, removed: 0 },
      errors: [],
      startedAt: now.toISOString(),
      completedAt: null,
      // Ingestion takes it over; a copy that never arrives leaves a job the reaper marks failed.
      leaseUntil: leaseFrom(now),
    };
    if (job.status !== "running") return job;
    await this.deps.jobs.put(job);
    const baseName = found.job.file.name.slice(found.job.file.name.lastIndexOf("/") + 1);
    const copied = await this.deps.files.copy(
      found.job.file.container,
      found.job.file.name,
      INBOUND,
      `${original.feedId}/${REPROCESS_FOLDER}/${id}/${baseName}`,
      {
        reprocessof: jobId,
        reprocessjob: id,
        // The job shows the provider's name, not the folder's (metadata values are ASCII: URI-encoded).
        sourcename: encodeURIComponent(original.fileName ?? baseName),
      },
    );
    if (copied === "gone")
      throw new AppError("CONFLICT", "The service no longer keeps this job's file; it cannot be processed again");
    return job;
  }
}
