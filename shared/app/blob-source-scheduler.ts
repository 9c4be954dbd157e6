import { nextRunAfter, type BlobSource } from "../domain/blob-source";
import { scheduledRunId } from "../domain/blob-source-run";
import type { Logger } from "../logging";
import type { Clock } from "../ports/clock";
import type { SettingsRepository } from "../ports/settings-repository";
import type { BlobSourceRunStore, StoredBlobSourceRun } from "./blob-source-ports";
import { newRun } from "./blob-source-runner";

/** A claimed run not taken by any instance after this long lost its message (a crash between claim and send): it is sent again. */
export const UNSENT_AFTER_SECONDS = 120;

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
    return claimed;
  }

  private async start(source: BlobSource, now: Date): Promise<StoredBlobSourceRun | undefined> {
    const dueAt = source.nextRunAt ?? now.toISOString();
    const run = newRun(scheduledRunId(source.id, dueAt), source.id, "schedule", dueAt, now.toISOString());
    let mine: StoredBlobSourceRun | undefined;
    if (await this.deps.runs.create(run)) {
      await this.deps.enqueue(run);
      mine = run;
    } else {
      // Claimed before. If nobody took it for a while and it is still due, its message was lost: send it again.
      const existing = await this.deps.runs.get(source.id, run.id);
      const stale = existing !== undefined && existing.status === "running" && existing.leaseUntil === undefined && Date.parse(existing.startedAt) < now.getTime() - UNSENT_AFTER_SECONDS * 1000;
      if (stale) await this.deps.enqueue(existing);
    }
    await this.deps.sources.update(source.id, (current) => {
      if (current.nextRunAt !== dueAt) return undefined; // advanced by another timer already
      return { ...current, nextRunAt: nextRunAfter(current.schedule, now)?.toISOString() ?? null };
    });
    return mine;
  }
}
