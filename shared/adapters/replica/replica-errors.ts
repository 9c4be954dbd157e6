import { AppError } from "../../domain/errors";
import { AGAIN, retry, type RetryBudget } from "../cosmos/retry";

/** Codes of failures that a second try of the same transaction may not meet (a race with another writer). */
const TRANSIENT_POSTGRES = new Set(["40001", "40P01", "23505"]);
const TRANSIENT_SQLSERVER = new Set([1205, 2601, 2627]);

function isTransient(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const { code, number } = error as { code?: unknown; number?: unknown };
  return (
    (typeof code === "string" && TRANSIENT_POSTGRES.has(code)) ||
    (typeof number === "number" && TRANSIENT_SQLSERVER.has(number))
  );
}

/** A transaction that lost a race is tried again soon, a few times. */
const LOST_RACES: RetryBudget = { attempts: 5, delayMs: (attempt) => 20 * attempt * attempt };

/**
 * Runs a transaction again when it lost a race (a deadlock, a serialization failure, two writers
 * inserting the same new key): the version guard makes the repeat do the right thing.
 */
export async function retryingTransient<T>(transaction: () => Promise<T>): Promise<T> {
  let lost: unknown;
  return retry<T>(
    LOST_RACES,
    async () => {
      try {
        return await transaction();
      } catch (error) {
        if (!isTransient(error)) throw error;
        lost = error;
        return AGAIN;
      }
    },
    () => {
      throw lost;
    },
  );
}

/** A replica database that cannot be reached or refuses the service: 503, nothing of the driver's message leaks. */
export function replicaUnavailable(cause: unknown): AppError {
  return new AppError("SERVICE_UNAVAILABLE", "The replica database is not reachable right now; try again shortly", {
    cause,
    headers: { "Retry-After": "5" },
  });
}
