import type { Clock } from "../../ports/clock";
import type { MessageBus } from "../../ports/message-bus";
import type { ScheduledRun, ScheduledRunStore } from "../../ports/scheduled-runs";
import { MAX_RUN_ATTEMPTS, runMessage, type RunKind } from "./run-kind";

export interface RunLeaseDeps<R extends ScheduledRun> {
  runs: ScheduledRunStore<R>;
  kind: RunKind<R>;
  bus: MessageBus;
  clock: Clock;
}

/**
 * The states of a run's record as attempts take, hold and leave it. Taking is conditional (running,
 * not held by a live attempt, attempts left), and every later change is conditional on the run still
 * running under the same attempt, so a duplicated message, an attempt that outlived its lease or a run
 * given up by the scheduler never overwrites another attempt's record.
 */
export class RunLease<R extends ScheduledRun> {
  constructor(private readonly deps: RunLeaseDeps<R>) {}

  /** Takes the run for an attempt: undefined when it is finished, missing, held by an attempt whose lease is live, or out of attempts. */
  async take(ownerId: string, runId: string): Promise<R | undefined> {
    const now = this.deps.clock.now();
    let taken: R | undefined;
    await this.deps.runs.update(ownerId, runId, (current) => {
      taken = undefined;
      if (current.status !== "running") return undefined;
      const attempts = current.attempts ?? 0;
      // attempts 0: the claim's lease, which only guards against a lost message; the first attempt takes it.
      if (attempts > 0 && current.leaseUntil !== undefined && current.leaseUntil > now.toISOString()) return undefined;
      if (attempts >= MAX_RUN_ATTEMPTS) return undefined;
      const { nextAttemptAt: _due, ...rest } = current;
      taken = { ...rest, attempts: attempts + 1, leaseUntil: this.leaseFrom(now) } as R;
      return taken;
    });
    return taken;
  }

  /** Applies `change` while the run is still this attempt's: the run as stored, or undefined when it no longer is. */
  async update(run: R, change: (current: R) => R): Promise<R | undefined> {
    let mine = false;
    const stored = await this.deps.runs.update(this.deps.kind.ownerOf(run), run.id, (current) => {
      mine = this.mine(current, run);
      return mine ? change(current) : undefined;
    });
    return mine ? stored : undefined;
  }

  /** Extends the attempt's lease, storing its progress with it; undefined when the run is no longer this attempt's. */
  async renew(run: R, progress: (current: R) => R = (current) => current): Promise<R | undefined> {
    const leaseUntil = this.leaseFrom(this.deps.clock.now());
    return this.update(run, (current) => ({ ...progress(current), leaseUntil }));
  }

  /** Records the attempt's outcome (`status` and what goes with it), once: the finished run, or undefined when it was no longer this attempt's. */
  async finish(run: R, outcome: (current: R) => R): Promise<R | undefined> {
    const completedAt = this.deps.clock.now().toISOString();
    return this.update(run, (current) => ({ ...outcome(current), completedAt, leaseUntil: completedAt }));
  }

  /**
   * Leaves the run to a later attempt, `delaySeconds` from now: its lease set to then and its message
   * sent with that delay (the scheduler sends it again should that be lost). `change` is told that time.
   */
  async later(run: R, change: (current: R, retryAt: string) => R, delaySeconds: number): Promise<void> {
    const retryAt = new Date(this.deps.clock.now().getTime() + delaySeconds * 1000).toISOString();
    const updated = await this.update(run, (current) => ({ ...change(current, retryAt), leaseUntil: retryAt }));
    if (updated?.leaseUntil !== retryAt) return;
    await this.deps.bus.send(this.deps.kind.queue, [runMessage(this.deps.kind, run, delaySeconds)]);
  }

  private mine(current: R, run: R): boolean {
    return current.status === "running" && (current.attempts ?? 0) === (run.attempts ?? 0);
  }

  private leaseFrom(now: Date): string {
    return new Date(now.getTime() + this.deps.kind.leaseSeconds * 1000).toISOString();
  }
}
