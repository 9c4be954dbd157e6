import type { Logger } from "../../logging";
import type { Clock } from "../../ports/clock";
import type { MessageBus } from "../../ports/message-bus";
import type { ScheduledRun, ScheduledRunStore } from "../../ports/scheduled-runs";
import type { SettingsRepository } from "../../ports/settings-repository";
import { MAX_RUN_ATTEMPTS, runMessage, type RunClaim, type RunKind } from "./run-kind";

/** A definition that runs on a schedule (an export, a blob source): due when enabled and its `nextRunAt` has come. */
export interface RunOwner {
  id: string;
  status: string;
  nextRunAt: string | null;
}

/** How one kind of owner's schedule makes runs. */
export interface RunSchedule<O extends RunOwner, R extends ScheduledRun> {
  /** The run a due time becomes: its id derives from the owner and the due time, so the time is claimed once. */
  runFor(owner: O, dueAt: string, claim: RunClaim): R;
  /** The owner's first due time after `now` (null: none). */
  nextRunAt(owner: O, now: Date): string | null;
}

export interface ScheduledRunsDeps<O extends RunOwner, R extends ScheduledRun> {
  owners: Pick<SettingsRepository<O>, "all" | "update">;
  runs: ScheduledRunStore<R>;
  kind: RunKind<R>;
  schedule: RunSchedule<O, R>;
  bus: MessageBus;
  clock: Clock;
  log: Logger;
}

export interface ScheduledRunsTick<R> {
  /** The runs this tick claimed (and sent). */
  claimed: R[];
  /** Runs sent again: never taken (their message lost) or their attempt lost with its instance. */
  resent: number;
  /** Runs given up: their last attempt was lost too. */
  abandoned: number;
}

/** Why a manual run whose message could not be sent is recorded failed. */
const NOT_QUEUED = "the run could not be queued; it was not started";

/**
 * Runs on a schedule, for exports and blob sources alike. A tick claims, for every enabled owner whose
 * `nextRunAt` has come, that due time: the run's id derives from (owner, due time) and its document is
 * created only if absent, so of several timers firing at once one claims it; sends the run's message;
 * and moves `nextRunAt` on, only from that due time (a concurrent PATCH wins; due times missed while the
 * service was down become that one run). One owner's failure is logged and leaves it due; the others go
 * on. Then it sends again the runs no instance performs: claimed and never taken (the message lost, a
 * crash between claim and send), or taken by an attempt whose lease ran out (the instance lost); a run
 * lost after its last attempt is recorded failed.
 */
export class ScheduledRuns<O extends RunOwner, R extends ScheduledRun> {
  constructor(private readonly deps: ScheduledRunsDeps<O, R>) {}

  async tick(): Promise<ScheduledRunsTick<R>> {
    const { kind, log } = this.deps;
    const now = this.deps.clock.now();
    const claimed: R[] = [];
    for (const owner of await this.deps.owners.all()) {
      if (owner.status !== "enabled" || owner.nextRunAt === null || owner.nextRunAt > now.toISOString()) continue;
      try {
        const run = await this.claimDue(owner, owner.nextRunAt, now);
        if (run !== undefined) claimed.push(run);
      } catch (error) {
        // One owner's trouble (a definition no run can be made of, its message not sent) must not hold up the others; it stays due.
        log.warn(`scheduling ${kind.label} run failed`, { [kind.ownerField]: owner.id, error: String(error) });
      }
    }
    return { claimed, ...(await this.recover(now)) };
  }

  /**
   * Claims a run asked for now and sends it: undefined when its id is claimed already. A message that
   * cannot be sent fails the run and throws: whoever asked is told, and nothing runs behind their back.
   */
  async start(build: (claim: RunClaim) => R): Promise<R | undefined> {
    const { kind, runs } = this.deps;
    const run = build(this.claimAt(this.deps.clock.now()));
    if (!(await runs.claim(kind.ownerOf(run), run))) return undefined;
    try {
      await this.send(run);
    } catch (error) {
      const at = this.deps.clock.now().toISOString();
      await runs.update(kind.ownerOf(run), run.id, (current) =>
        current.status === "running" && (current.attempts ?? 0) === 0
          ? { ...current, status: "failed", error: NOT_QUEUED, completedAt: at, leaseUntil: at }
          : undefined,
      );
      throw error;
    }
    return run;
  }

  private async claimDue(owner: O, dueAt: string, now: Date): Promise<R | undefined> {
    const run = this.deps.schedule.runFor(owner, dueAt, this.claimAt(now));
    const mine = await this.deps.runs.claim(owner.id, run);
    // Claimed by another timer: that one sends it. A message not sent (there, or here by a throw) is sent again once the claim's lease ends.
    if (mine) await this.send(run);
    await this.deps.owners.update(owner.id, (current) =>
      current.nextRunAt === dueAt && current.status === "enabled"
        ? { ...current, nextRunAt: this.deps.schedule.nextRunAt(current, now) }
        : undefined,
    );
    return mine ? run : undefined;
  }

  /** Sends again the runs whose message or instance was lost; gives up on those whose last attempt was lost. */
  private async recover(now: Date): Promise<{ resent: number; abandoned: number }> {
    const { kind, log } = this.deps;
    const at = now.toISOString();
    const unsentBefore = new Date(now.getTime() - kind.unsentAfterSeconds * 1000).toISOString();
    let resent = 0;
    let abandoned = 0;
    for (const run of await this.deps.runs.abandoned(at, unsentBefore, 100)) {
      try {
        if ((run.attempts ?? 0) < MAX_RUN_ATTEMPTS) {
          await this.send(run);
          resent++;
        } else if (await this.giveUp(run, at)) {
          abandoned++;
        }
      } catch (error) {
        log.warn(`recovering ${kind.label} run failed`, {
          [kind.ownerField]: kind.ownerOf(run),
          runId: run.id,
          error: String(error),
        });
      }
    }
    if (resent + abandoned > 0)
      log.warn("runs no instance was performing: sent again or given up", { resent, abandoned });
    return { resent, abandoned };
  }

  /** Records the run failed, unless an attempt took it meanwhile: whether this call did. */
  private async giveUp(run: R, at: string): Promise<boolean> {
    const { kind } = this.deps;
    let failed = false;
    await this.deps.runs.update(kind.ownerOf(run), run.id, (current) => {
      failed =
        current.status === "running" &&
        (current.attempts ?? 0) >= MAX_RUN_ATTEMPTS &&
        (current.leaseUntil === undefined || current.leaseUntil <= at);
      return failed
        ? { ...current, status: "failed", error: current.error ?? kind.abandonedError, completedAt: at, leaseUntil: at }
        : undefined;
    });
    return failed;
  }

  private send(run: R): Promise<void> {
    return this.deps.bus.send(this.deps.kind.queue, [runMessage(this.deps.kind, run)]);
  }

  private claimAt(now: Date): RunClaim {
    return {
      startedAt: now.toISOString(),
      attempts: 0,
      leaseUntil: new Date(now.getTime() + this.deps.kind.unsentAfterSeconds * 1000).toISOString(),
    };
  }
}
