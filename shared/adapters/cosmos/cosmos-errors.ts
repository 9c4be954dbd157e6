import { AppError } from "../../domain/errors";

/** The HTTP status of a Cosmos SDK failure, or undefined when it is not one. */
export function cosmosStatus(error: unknown): number | undefined {
  if (typeof error === "object" && error !== null && "code" in error) {
    const code = (error as { code: unknown }).code;
    if (typeof code === "number") return code;
  }
  return undefined;
}

export const isNotFound = (error: unknown): boolean => cosmosStatus(error) === 404;
export const isConflict = (error: unknown): boolean => cosmosStatus(error) === 409;
export const isPreconditionFailed = (error: unknown): boolean => cosmosStatus(error) === 412;

/** Translates throttling and outages into SERVICE_UNAVAILABLE; everything else is rethrown as is. */
export function translateCosmosError(error: unknown): never {
  const status = cosmosStatus(error);
  if (status === 429 || status === 503) {
    throw new AppError("SERVICE_UNAVAILABLE", "The data store is busy; retry shortly", {
      cause: error,
      headers: { "Retry-After": "1" },
    });
  }
  throw error;
}

/** Drops the Cosmos system properties from a stored document. */
export function stripSystem<T extends object>(doc: T): T {
  const out = { ...doc } as Record<string, unknown>;
  for (const key of ["_rid", "_self", "_etag", "_ts", "_attachments", "_lsn"]) delete out[key];
  return out as T;
}
