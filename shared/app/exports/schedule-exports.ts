import { MAX_EXPORT_ATTEMPTS, type ExportRunRepository } from "../../domain/export-run";
import { nextRunAt } from "../../domain/export-schedule";
import type { Logger } from "../../logging";
import type { Clock } from "../../ports/clock";
import type { MessageBus } from "../../ports/message-bus";
import { claimRun, type ExportRunMessage } from "./run-lease";
import type { ExportRepository } from "./exports";

export interface ScheduleExportsResult {
  /** Runs this tick claimed and sent. */
  claimed: number;
  /** Runs whose attempt died (lease over) sent again. */
  resent: number;
  /** Runs failed because their last attempt died. */
  abandoned: number;
}

/**
 * The exports timer. Each enabled export whose `nextRunAt` has come is claimed for that scheduled
 * time (a conditional create keyed by export and time: of two timers firing at once, one wins), its
 * run sent to the `exports` queue, and `nextRunAt` moved on (scheduled times missed while the service
 * was down collapse into that one run). Then the sweep: runs still `running` past their lease lost
 * their attempt (a dead instance, a lost message) and are sent again, or failed after the third.
 */
export class ScheduleExports {
  constructor(
    private readonly exports: ExportRepository,
    private readonly runs: ExportRunRepository,
    private readonly bus: MessageBus,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly leaseSeconds: number,
  ) {}

  async tick(): Promise<ScheduleExportsResult> {
    const now = this.clock.now();
    let claimed = 0;
    for (const exp of await this.exports.all()) {
      if (exp.status !== "enabled" || exp.nextRunAt === null || exp.nextRunAt > now.toISOString()) continue;
      const due = exp.nextRunAt;
      const run = await claimRun(this.runs, exp, new Date(due), "schedule", now, this.leaseSeconds);
      if (run !== undefined) {
        await this.bus.send("exports", [{ body: { exportId: exp.id, runId: run.id } satisfies ExportRunMessage }]);
        claimed++;
      }
      // Whoever claimed it, the time is taken: move on (only from that time, so a concurrent PATCH wins).
      await this.exports.update(exp.id, (current) =>
        current.nextRunAt === due && current.status === "enabled" ? { ...current, nextRunAt: nextRunAt(current.schedule, now).toISOString() } : undefined,
      );
    }
    return { claimed, ...(await this.sweep(now)) };
  }

  private async sweep(now: Date): Promise<{ resent: number; abandoned: number }> {
    let resent = 0;
    let abandoned = 0;
    for (const run of await this.runs.expired(now.toISOString(), 100)) {
      if (run.attempts >= MAX_EXPORT_ATTEMPTS) {
        const at = now.toISOString();
        const failed = await this.runs.update(run.exportId, run.id, (current) =>
          current.status === "running" && current.leaseUntil <= at
            ? { ...current, status: "failed", error: current.error ?? `the attempt did not finish; stopped after ${MAX_EXPORT_ATTEMPTS} attempts`, completedAt: at, leaseUntil: at }
            : undefined,
        );
        if (failed?.status === "failed") abandoned++;
        continue;
      }
      await this.bus.send("exports", [{ body: { exportId: run.exportId, runId: run.id } satisfies ExportRunMessage }]);
      resent++;
    }
    if (resent + abandoned > 0) this.log.warn("export runs whose attempt died", { resent, abandoned });
    return { resent, abandoned };
  }
}
