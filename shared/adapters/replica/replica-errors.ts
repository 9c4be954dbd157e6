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

/**
 * Failures caused by a value of the batch, which no repeat can cure. PostgreSQL: class 22 (data
 * exception: `invalid byte sequence for encoding "UTF8": 0x00`, `date/time field value out of range`,
 * `numeric field overflow`, a string too long, …), class 23 (integrity: a null in a NOT NULL column;
 * a duplicate key once its retries as a lost race are spent, i.e. two rows of one batch with the same
 * key), 54000 (a value too large for an index row). Everything else (08 connection, 57P01 shutdown,
 * 57P03 starting up, 53 out of resources, 40 deadlock/serialization, 42 a bug or a changed schema) is
 * not the data's fault and is retried.
 */
const DATA_POSTGRES = /^(22|23)[0-9A-Z]{3}$|^54000$/;
/**
 * SQL Server's error numbers for the same: 220/232 arithmetic overflow of an integer/float, 241
 * date/time conversion from text, 242 a date out of range, 245 a conversion of a value, 515 NULL into
 * a NOT NULL column, 517 a date overflow, 547 a constraint (the foreign keys are disabled, so a CHECK),
 * 2601/2627 a duplicate key (after its retries), 2628/8152 string or binary data would be truncated,
 * 8023 an invalid parameter value in the RPC stream, 8114 a conversion between types, 8115 arithmetic
 * overflow converting to decimal. Connection and resource errors (40613, 40197, 40501, 49918–49920,
 * 10928/10929, 4060, 233, -2 timeout), 1205 deadlocks and the rest are retried.
 */
const DATA_SQLSERVER = new Set([220, 232, 241, 242, 245, 515, 517, 547, 2601, 2627, 2628, 8023, 8114, 8115, 8152]);

/** The engine's message when `error` is a refused value (a data error), else undefined. */
export function refusedValue(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const { code, number, message } = error as { code?: unknown; number?: unknown; message?: unknown };
  const data =
    (typeof code === "string" && DATA_POSTGRES.test(code)) ||
    (typeof number === "number" && DATA_SQLSERVER.has(number));
  if (!data) return undefined;
  return typeof message === "string" && message !== "" ? message : `error ${String(code ?? number)}`;
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
