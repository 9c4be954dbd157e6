import type { Job } from "../../domain/job";
import type { Outbox } from "../../ports/outbox";
import type { InvestmentDeps } from "./investment-deps";
import { jobEvent } from "./job-event";

/** Jobs reaped per run; the next run (a minute later by default) takes the rest. */
const REAP_LIMIT = 100;

export interface ReapAbandonedJobsDeps extends Pick<InvestmentDeps, "jobs" | "clock"> {
  outbox: Outbox;
}

/**
 * Marks abandoned imports failed: a job still `running` after its lease passed was left by a process
 * that ended (a crash, a redeploy, a timeout), since a live import renews its lease after every batch.
 * The job keeps the counts its batches reported, so it says what was stored.
 */
export class ReapAbandonedJobs {
  constructor(private readonly deps: ReapAbandonedJobsDeps) {}

  /** Returns the ids of the jobs marked failed. */
  async execute(): Promise<string[]> {
    const { jobs, outbox, clock } = this.deps;
    const now = clock.now().toISOString();
    const abandoned = await jobs.abandoned(now, REAP_LIMIT);
    const reaped: string[] = [];
    for (const found of abandoned) {
      // Conditional on the version read: an import that renewed its lease or finished meanwhile keeps
      // its own outcome.
      let failed: Job | undefined;
      await jobs.update(found.id, (job) => {
        if (job.status !== "running" || job.leaseUntil === null || job.leaseUntil >= now) return (failed = undefined);
        const accepted = job.counts.accepted;
        failed = {
          ...job,
          status: "failed",
          errors: [
            ...job.errors,
            {
              field: "",
              message: `the import stopped without finishing: its lease ran out at ${job.leaseUntil} (the process running it ended); ${accepted} of ${job.counts.received} records were stored; retry it (writes are idempotent)`,
            },
          ],
          completedAt: now,
          leaseUntil: null,
        };
        return failed;
      });
      if (failed === undefined) continue;
      await outbox.append([jobEvent(failed)]);
      reaped.push(found.id);
    }
    return reaped;
  }
}
