import { nextRunAfter, type BlobSource } from "../../domain/blob-source";
import { scheduledRunId } from "../../domain/blob-source-run";
import type { Logger } from "../../logging";
import type { Clock } from "../../ports/clock";
import type { SettingsRepository } from "../../ports/settings-repository";
import type { BlobSourceRunStore, StoredBlobSourceRun } from "../../ports/blob-sources";
import { newRun } from "./run-blob-source";

/** A claimed run no instance took after this long lost its message (a crash between claim and send): it is sent again. */
export const UNSENT_AFTER_SECONDS = 120;
/** A run whose instance was lost this many times is given up (recorded failed); the next run continues. */
export const MAX_RUN_ATTEMPTS = 3;

export interface ScheduleBlobSourcesDeps {
  sources: Pick<SettingsRepository<BlobSource>, "all" | "update">;
  runs: BlobSourceRunStore;
  /** Sends a run's `blob-sources` message (BlobSources.enqueue). */
  enqueue(run: StoredBlobSourceRun): Promise<void>;
  clock: Clock;
  log: Logger;
}

/**
 * The timer's work: every enabled source whose `nextRunAt` has come gets a run for that due time.
 * The run's id derives from (source, due time) and is created only if absent, so a due time is
 * claimed once however many timers fire; then its message is sent and `nextRunAt` moves to the
 * first slot after now (missed slots are not caught up one by one: one run copies everything new).
 * Runs left `running` by a lost message or a lost instance are sent again (a few times, then failed).
 */
export class ScheduleBlobSources {
  constructor(private readonly deps: ScheduleBlobSourcesDeps) {}

  /** The runs this call claimed. */
  async run(): Promise<StoredBlobSourceRun[]> {
    const now = this.deps.clock.now();
    const due = (await this.deps.sources.all()).filter((s) => s.status === "enabled" && s.nextRunAt !== null && s.nextRunAt <= now.toISOString());
    const claimed: StoredBlobSourceRun[] = [];
    for (const source of due) {
      try {
        const run = await this.start(source, now);
        if (run !== undefined) claimed.push(run);
      } catch (error) {
        // One source's trouble (its message not sent) must not hold up the others; it stays due.
        this.deps.log.warn("scheduling a blob source run failed", { blobSourceId: source.id, error: String(error) });
      }
    }
    await this.recover(now);
    return claimed;
  }

  private async start(source: BlobSource, now: Date): Promise<StoredBlobSourceRun | undefined> {
    const dueAt = source.nextRunAt ?? now.toISOString();
    const run = newRun(scheduledRunId(source.id, dueAt), source.id, "schedule", dueAt, now.toISOString());
    const mine = await this.deps.runs.create(run);
    // Claimed by another timer: that one sends it (or, should it die first, recover() does later).
    if (mine) await this.deps.enqueue(run);
    await this.deps.sources.update(source.id, (current) => {
      if (current.nextRunAt !== dueAt) return undefined; // advanced by another timer already
      return { ...current, nextRunAt: nextRunAfter(current.schedule, now)?.toISOString() ?? null };
    });
    return mine ? run : undefined;
  }

  /** Sends again the runs whose message or instance was lost; gives up on those lost too often. */
  private async recover(now: Date): Promise<void> {
    const abandoned = await this.deps.runs.abandoned(now.toISOString(), new Date(now.getTime() - UNSENT_AFTER_SECONDS * 1000).toISOString());
    for (const run of abandoned) {
      try {
        if ((run.attempts ?? 0) >= MAX_RUN_ATTEMPTS) {
          const { leaseUntil: _l, attempts: _a, ...rest } = run;
          const error = `the run stopped ${MAX_RUN_ATTEMPTS} times without finishing (the instance performing it was lost); the next run continues from what was recorded`;
          await this.deps.runs.save({ ...rest, status: "failed", error, completedAt: now.toISOString() });
        } else {
          await this.deps.enqueue(run);
        }
      } catch (error) {
        this.deps.log.warn("recovering a blob source run failed", { blobSourceId: run.blobSourceId, runId: run.id, error: String(error) });
      }
    }
  }
}
