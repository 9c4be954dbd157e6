import { Cron } from "croner";
import type { Logger } from "../shared/logging";
import { invocationContext, type LoadedFunction } from "./functions-host";

/** Runs timer-triggered functions on their NCRONTAB schedules (six fields, seconds first). */
export class TimerHost {
  private readonly jobs: Cron[] = [];
  private readonly running = new Set<Promise<unknown>>();

  constructor(
    private readonly functions: LoadedFunction[],
    private readonly log: Logger,
  ) {}

  start(): void {
    for (const fn of this.functions.filter((f) => f.trigger.type === "timerTrigger")) {
      const schedule = String(fn.trigger.schedule);
      const job = new Cron(schedule, { protect: true, timezone: "UTC" }, () => this.invoke(fn, false));
      this.jobs.push(job);
      if (fn.trigger.runOnStartup === true) void this.invoke(fn, false);
    }
  }

  /** Runs one timer function now (tests and the local CLI use it). */
  invoke(fn: LoadedFunction, isPastDue: boolean): Promise<void> {
    const context = invocationContext(fn.name, this.log.sink);
    const run = Promise.resolve()
      .then(() => fn.handler({ isPastDue, scheduleStatus: {} }, context))
      .then(
        () => undefined,
        (error: unknown) => this.log.error("timer function failed", { function: fn.name, error: String(error) }),
      );
    this.running.add(run);
    void run.finally(() => this.running.delete(run));
    return run;
  }

  async stop(): Promise<void> {
    for (const job of this.jobs) job.stop();
    await Promise.all(this.running);
  }
}
