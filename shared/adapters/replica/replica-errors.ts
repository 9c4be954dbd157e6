import { AppError } from "../../domain/errors";

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

/**
 * Runs a transaction again when it lost a race (a deadlock, a serialization failure, two writers
 * inserting the same new key): the version guard makes the repeat do the right thing.
 */
export async function retryingTransient<T>(transaction: () => Promise<T>, attempts = 5): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await transaction();
    } catch (error) {
      if (attempt >= attempts || !isTransient(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20 * attempt * attempt));
    }
  }
}

/** A replica database that cannot be reached or refuses the service: 503, nothing of the driver's message leaks. */
export function replicaUnavailable(cause: unknown): AppError {
  return new AppError("SERVICE_UNAVAILABLE", "The replica database is not reachable right now; try again shortly", {
    cause,
    headers: { "Retry-After": "5" },
  });
}
