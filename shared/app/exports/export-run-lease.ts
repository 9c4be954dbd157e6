import type { StoredExportRun } from "../../domain/export-run";
import type { RunLease } from "../scheduled-runs/run-lease";
import { MAX_RUN_ATTEMPTS } from "../scheduled-runs/run-kind";
import type { ExportRunMessage } from "./export-runs";

export interface ExportRunLeaseDeps {
  lease: RunLease<StoredExportRun>;
  /** How long a failed (or waiting) attempt waits before the next. */
  retryDelaySeconds: number;
}

/**
 * An export run's record as its attempts take, hold and leave it (RunLease, with what exports add: the
 * file name each attempt records, rows and bytes, and failed or waiting attempts retried after a delay).
 */
export class ExportRunLease {
  constructor(private readonly deps: ExportRunLeaseDeps) {}

  /** Takes the run for an attempt: undefined when it is finished, or held by an attempt whose lease is live. */
  take(message: ExportRunMessage): Promise<StoredExportRun | undefined> {
    return this.deps.lease.take(message.exportId, message.runId);
  }

  /** Records the file name this attempt writes (rendered from the definition it works from); undefined when the run is no longer this attempt's. */
  async name(run: StoredExportRun, fileName: string): Promise<StoredExportRun | undefined> {
    if (run.fileName === fileName) return run;
    const stored = await this.deps.lease.update(run, (current) => ({ ...current, fileName }));
    return stored === undefined ? undefined : { ...run, fileName };
  }

  /** Extends the attempt's lease; false when the run is no longer this attempt's. */
  async renew(run: StoredExportRun): Promise<boolean> {
    return (await this.deps.lease.renew(run)) !== undefined;
  }

  async finish(
    run: StoredExportRun,
    outcome: { status: "succeeded" | "failed"; rows?: number; bytes?: number; error?: string },
  ): Promise<void> {
    await this.deps.lease.finish(run, (current) => {
      const { error: _previous, ...rest } = current;
      return {
        ...rest,
        status: outcome.status,
        rows: outcome.rows ?? 0,
        bytes: outcome.bytes ?? 0,
        ...(outcome.error !== undefined ? { error: outcome.error } : {}),
      };
    });
  }

  /** The last attempt fails the run; an earlier one records why and schedules the next attempt. */
  async failAttempt(run: StoredExportRun, reason: string): Promise<void> {
    if (run.attempts >= MAX_RUN_ATTEMPTS) {
      await this.finish(run, { status: "failed", error: reason });
      return;
    }
    // Until the next attempt takes it, the run answers "retrying" with this time.
    await this.deps.lease.later(
      run,
      (current, retryAt) => ({ ...current, error: reason, nextAttemptAt: retryAt }),
      this.deps.retryDelaySeconds,
    );
  }

  /**
   * The run's target is being written by another run: this attempt does not count, and the run waits
   * (still `running`) for the retry delay before trying again.
   */
  async giveBack(run: StoredExportRun): Promise<void> {
    await this.deps.lease.later(
      run,
      (current) => ({ ...current, attempts: run.attempts - 1 }),
      this.deps.retryDelaySeconds,
    );
  }
}
