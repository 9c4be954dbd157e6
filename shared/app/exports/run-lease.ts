import type { StoredExport } from "../../domain/export";
import { renderFileName } from "../../domain/export-file-name";
import { exportRunId, MAX_EXPORT_ATTEMPTS, type ExportRun, type ExportRunRepository, type StoredExportRun } from "../../domain/export-run";
import type { Clock } from "../../ports/clock";
import type { MessageBus } from "../../ports/message-bus";

/** The body of an `exports` queue message: the run to perform. */
export interface ExportRunMessage {
  exportId: string;
  runId: string;
}

/**
 * Opens a run in the `runs` container, claiming (export, scheduled time): undefined when another
 * caller (a second timer, a retried tick) claimed it first. The file name is the one the definition
 * gives now; each attempt renders it again from the definition it works from (see RunExport).
 */
export async function claimRun(runs: ExportRunRepository, exp: StoredExport, scheduledFor: Date, trigger: ExportRun["trigger"], now: Date, leaseSeconds: number): Promise<StoredExportRun | undefined> {
  const at = scheduledFor.toISOString();
  const run: StoredExportRun = {
    id: exportRunId(exp.id, at, trigger),
    exportId: exp.id,
    trigger,
    scheduledFor: at,
    status: "running",
    fileName: renderFileName(exp.fileName, { exportId: exp.id, dataType: exp.dataType, format: exp.format, scheduledFor, timezone: exp.schedule.timezone }),
    rows: 0,
    bytes: 0,
    startedAt: now.toISOString(),
    attempts: 0,
    leaseUntil: new Date(now.getTime() + leaseSeconds * 1000).toISOString(),
  };
  return (await runs.claim(run)) ? run : undefined;
}

export interface RunLeaseDeps {
  runs: ExportRunRepository;
  bus: MessageBus;
  clock: Clock;
  /** How long an attempt holds its run without renewing (it renews at a third of it while alive). */
  leaseSeconds: number;
  /** How long a failed (or waiting) attempt waits before the next. */
  retryDelaySeconds: number;
}

/**
 * The states of a run's record as attempts take, hold and leave it: every change is conditional on
 * the run still running under this attempt, so a duplicate message, an attempt that outlived its
 * lease or a swept run never overwrites another attempt's record.
 */
export class RunLease {
  constructor(private readonly deps: RunLeaseDeps) {}

  /** Takes the run for an attempt: undefined when it is finished, or held by an attempt whose lease is live. */
  async take(message: ExportRunMessage): Promise<StoredExportRun | undefined> {
    const now = this.deps.clock.now();
    let taken: StoredExportRun | undefined;
    await this.deps.runs.update(message.exportId, message.runId, (current) => {
      taken = undefined;
      if (current.status !== "running") return undefined;
      // attempts 0: the claim's lease, which only guards against a lost message; the first attempt takes it.
      if (current.attempts > 0 && current.leaseUntil > now.toISOString()) return undefined;
      if (current.attempts >= MAX_EXPORT_ATTEMPTS) return undefined;
      taken = { ...current, attempts: current.attempts + 1, leaseUntil: this.leaseFrom(now) };
      return taken;
    });
    return taken;
  }

  /** Records the file name this attempt writes (rendered from the definition it works from); undefined when the run is no longer this attempt's. */
  async name(run: StoredExportRun, fileName: string): Promise<StoredExportRun | undefined> {
    if (run.fileName === fileName) return run;
    let mine = false;
    await this.deps.runs.update(run.exportId, run.id, (current) => {
      mine = this.mine(current, run);
      return mine ? { ...current, fileName } : undefined;
    });
    return mine ? { ...run, fileName } : undefined;
  }

  /** Extends the attempt's lease; false when the run is no longer this attempt's. */
  async renew(run: StoredExportRun): Promise<boolean> {
    const leaseUntil = this.leaseFrom(this.deps.clock.now());
    let mine = false;
    await this.deps.runs.update(run.exportId, run.id, (current) => {
      mine = this.mine(current, run);
      return mine ? { ...current, leaseUntil } : undefined;
    });
    return mine;
  }

  /** Whether the run is still running under this attempt. */
  async isMine(run: StoredExportRun): Promise<boolean> {
    const current = await this.deps.runs.get(run.exportId, run.id);
    return current !== undefined && this.mine(current, run);
  }

  async finish(run: StoredExportRun, outcome: { status: "succeeded" | "failed"; rows?: number; bytes?: number; error?: string }): Promise<void> {
    const completedAt = this.deps.clock.now().toISOString();
    await this.deps.runs.update(run.exportId, run.id, (current) => {
      if (!this.mine(current, run)) return undefined;
      const { error: _previous, ...rest } = current;
      return { ...rest, status: outcome.status, rows: outcome.rows ?? 0, bytes: outcome.bytes ?? 0, ...(outcome.error !== undefined ? { error: outcome.error } : {}), completedAt, leaseUntil: completedAt };
    });
  }

  /** The last attempt fails the run; an earlier one records why and schedules the next attempt. */
  async failAttempt(run: StoredExportRun, reason: string): Promise<void> {
    if (run.attempts >= MAX_EXPORT_ATTEMPTS) {
      await this.finish(run, { status: "failed", error: reason });
      return;
    }
    await this.later(run, (current) => ({ ...current, error: reason }));
  }

  /**
   * The run's target is being written by another run: this attempt does not count, and the run waits
   * (still `running`) for the retry delay before trying again.
   */
  async giveBack(run: StoredExportRun): Promise<void> {
    await this.later(run, (current) => ({ ...current, attempts: run.attempts - 1 }));
  }

  /** Leaves the run to the next attempt after the retry delay: its lease set to then, its message sent delayed (the sweep sends it again if that is lost). */
  private async later(run: StoredExportRun, change: (current: StoredExportRun) => StoredExportRun): Promise<void> {
    const { clock, retryDelaySeconds } = this.deps;
    const retryAt = new Date(clock.now().getTime() + retryDelaySeconds * 1000).toISOString();
    const updated = await this.deps.runs.update(run.exportId, run.id, (current) => (this.mine(current, run) ? { ...change(current), leaseUntil: retryAt } : undefined));
    if (updated?.leaseUntil !== retryAt) return;
    await this.deps.bus.send("exports", [{ body: { exportId: run.exportId, runId: run.id } satisfies ExportRunMessage, delaySeconds: retryDelaySeconds }]);
  }

  private mine(current: StoredExportRun, run: StoredExportRun): boolean {
    return current.status === "running" && current.attempts === run.attempts;
  }

  private leaseFrom(now: Date): string {
    return new Date(now.getTime() + this.deps.leaseSeconds * 1000).toISOString();
  }
}
