import type { Job } from "../../domain/job";
import type { Clock } from "../../ports/clock";
import type { JobRepository } from "../../ports/investment-repositories";
import type { Outbox } from "../../ports/outbox";
import { jobEvent } from "./import/import-records";

/** Jobs reaped per run; the next run (a minute later by default) takes the rest. */
const REAP_LIMIT = 100;

/**
 * Marks abandoned imports failed: a job still `running` after its lease passed was left by a process
 * that ended (a crash, a redeploy, a timeout), since a live import renews its lease after every batch.
 * The job keeps the counts its batches reported, so it says what was stored.
 */
export class ReapAbandonedJobs {
  constructor(
    private readonly jobs: JobRepository,
    private readonly outbox: Outbox,
    private readonly clock: Clock,
  ) {}

  /** Returns the ids of the jobs marked failed. */
  async run(): Promise<string[]> {
    const now = this.clock.now().toISOString();
    const abandoned = await this.jobs.abandoned(now, REAP_LIMIT);
    const reaped: string[] = [];
    for (const found of abandoned) {
      // Conditional on the version read: an import that renewed its lease or finished meanwhile keeps
      // its own outcome.
      let failed: Job | undefined;
      await this.jobs.update(found.id, (job) => {
        if (job.status !== "running" || job.leaseUntil === null || job.leaseUntil >= now) return (failed = undefined);
        const accepted = job.counts.accepted;
        failed = {
          ...job,
          status: "failed",
          errors: [
            ...job.errors,
            { field: "", message: `the import stopped without finishing: its lease ran out at ${job.leaseUntil} (the process running it ended); ${accepted} of ${job.counts.received} records were stored; retry it (writes are idempotent)` },
          ],
          completedAt: now,
          leaseUntil: null,
        };
        return failed;
      });
      if (failed === undefined) continue;
      await this.outbox.append([jobEvent(failed)]);
      reaped.push(found.id);
    }
    return reaped;
  }
}
