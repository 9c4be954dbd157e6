import type { CursorPage, PageRequest } from "../domain/page-request";

/** What every run in the `runs` container has, whatever owns it (an export, a blob source). */
export interface ScheduledRun {
  id: string;
  trigger: "schedule" | "manual";
  /** The due time it runs for (schedule), or when it was asked for (manual). */
  scheduledFor: string;
  status: "running" | "succeeded" | "failed";
  /** When it was claimed. */
  startedAt: string;
  completedAt?: string;
  error?: string;
  /** How many attempts took the run so far (0 until one does). */
  attempts?: number;
  /**
   * While `running`: until when the attempt in progress holds the run or, before the first attempt,
   * how long the claim waits for its message to be taken; past it the run is sent again. Runs of blob
   * sources claimed before claims had a lease have none until an attempt takes them.
   */
  leaseUntil?: string;
  /** While `running` after a failed attempt: when the next attempt is due (the run is "retrying" until one takes it). */
  nextAttemptAt?: string;
}

/** The runs of one kind of owner (exports, blob sources) in the Cosmos `runs` container, one partition per owner. */
export interface ScheduledRunStore<R extends ScheduledRun> {
  /** Creates the run unless one with its id exists: true when this call created it (the claim of its id). */
  claim(ownerId: string, run: R): Promise<boolean>;
  /**
   * Read-modify-write conditional on the version read (re-read and re-applied after a lost race);
   * `change` returns undefined to leave the run. What is stored afterwards; undefined when missing.
   */
  update(ownerId: string, runId: string, change: (current: R) => R | undefined): Promise<R | undefined>;
  /**
   * Runs of every owner still `running` that no instance performs (at most `limit`): their lease ended
   * before `now`, or they have none and were claimed before `unsentBefore`.
   */
  abandoned(now: string, unsentBefore: string, limit: number): Promise<R[]>;
  /** Newest first. */
  list(ownerId: string, request: PageRequest): Promise<CursorPage<R>>;
  /** The newest run of each owner (by the order `list` uses), in a fixed number of store calls whatever the number of owners; owners that never ran are absent. */
  latest(ownerIds: readonly string[]): Promise<Map<string, R>>;
}
