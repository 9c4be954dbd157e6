import { AppError } from "../../domain/errors";

/** How many times, and how far apart, one kind of store race is tried again. */
export interface RetryBudget {
  readonly attempts: number;
  /** The wait before attempt `attempt + 1`, in milliseconds. */
  delayMs(attempt: number): number;
}

/**
 * A write conditional on what was read (ETag `IfMatch`, create-if-absent, a conditional patch) lost to
 * a concurrent writer: read again and retry soon, with jitter so that the writers that lost one round
 * do not collide again in lockstep.
 */
export const CONFLICTS: RetryBudget = {
  attempts: 30,
  delayMs: (attempt) => Math.random() * 10 * Math.min(attempt, 5),
};

/**
 * The store is throttling (429) or briefly unavailable (503), beyond what the SDK retried itself:
 * back off exponentially, about 3 s in all.
 */
export const THROTTLING: RetryBudget = {
  attempts: 8,
  delayMs: (attempt) => 25 * 2 ** (attempt - 1),
};

/** What an attempt returns to be tried again. */
export const AGAIN = Symbol("again");

/**
 * Runs `attempt` (numbered from 1) until it returns something other than AGAIN; once the budget is
 * spent, answers what `exhausted` returns (or throws). The one loop every race-prone store write goes
 * through.
 */
export async function retry<T>(
  budget: RetryBudget,
  attempt: (n: number) => Promise<T | typeof AGAIN>,
  exhausted: () => T,
): Promise<T> {
  for (let n = 1; ; n++) {
    const result = await attempt(n);
    if (result !== AGAIN) return result;
    if (n >= budget.attempts) return exhausted();
    await new Promise((resolve) => setTimeout(resolve, budget.delayMs(n)));
  }
}

/** A retryable CONFLICT once a write has lost every race of its budget: the caller (or its client) may try again later. */
export function stillContended(what: string): never {
  throw new AppError("CONFLICT", `${what} is being changed by other requests at the same time; retry`, {
    retryable: true,
  });
}
