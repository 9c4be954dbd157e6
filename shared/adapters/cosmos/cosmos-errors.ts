import type { Container } from "@azure/cosmos";
import { AppError } from "../../domain/errors";

/** The HTTP status of a Cosmos SDK failure, or undefined when it is not one. */
export function cosmosStatus(error: unknown): number | undefined {
  if (typeof error === "object" && error !== null && "code" in error) {
    const code = error.code;
    if (typeof code === "number") return code;
  }
  return undefined;
}

export const isNotFound = (error: unknown): boolean => cosmosStatus(error) === 404;
export const isConflict = (error: unknown): boolean => cosmosStatus(error) === 409;
export const isPreconditionFailed = (error: unknown): boolean => cosmosStatus(error) === 412;

/** Creates the document unless one with its id exists in its partition: false then (a claim already taken). */
export async function createIfAbsent(container: Container, doc: object): Promise<boolean> {
  try {
    await container.items.create(doc);
    return true;
  } catch (error) {
    if (isConflict(error)) return false;
    throw error;
  }
}

/** Statuses that mean "the store is busy or unreachable right now": the caller should retry later. */
const TRANSIENT = new Set([408, 429, 503]);
export const isTransient = (status: number | undefined): boolean => status !== undefined && TRANSIENT.has(status);

/** Seconds to wait when Cosmos names no delay of its own. */
const DEFAULT_RETRY_AFTER_SECONDS = 1;

/** The delay Cosmos asked for (x-ms-retry-after-ms), in whole seconds, at least one. */
function retryAfterSeconds(error: unknown): number {
  let ms: number | undefined;
  if (typeof error === "object" && error !== null) {
    const e = error as {
      retryAfterInMs?: unknown;
      retryAfterInMilliseconds?: unknown;
      headers?: Record<string, unknown>;
    };
    const header = e.headers?.["x-ms-retry-after-ms"];
    for (const candidate of [e.retryAfterInMs, e.retryAfterInMilliseconds, header]) {
      const n = typeof candidate === "string" ? Number(candidate) : candidate;
      if (typeof n === "number" && Number.isFinite(n) && n > 0) {
        ms = n;
        break;
      }
    }
  }
  return ms === undefined ? DEFAULT_RETRY_AFTER_SECONDS : Math.max(1, Math.ceil(ms / 1000));
}

/** SERVICE_UNAVAILABLE for a store that stayed busy after the SDK's (or our bulk) retries. */
export function storeBusy(cause: unknown): AppError {
  return new AppError("SERVICE_UNAVAILABLE", "The data store is busy; retry shortly", {
    cause,
    headers: { "Retry-After": String(retryAfterSeconds(cause)) },
    retryable: true,
  });
}

/**
 * The status of the last failed gateway request recorded in an error's diagnostics. items.bulk wraps a
 * failed batch request (after the SDK's retries) in a plain Error without its code; the diagnostics it
 * attaches are the only place the status survives.
 */
function diagnosedStatus(error: unknown): number | undefined {
  if (typeof error !== "object" || error === null || !("diagnostics" in error)) return undefined;
  const stats = (
    error as { diagnostics?: { clientSideRequestStatistics?: { gatewayStatistics?: { statusCode?: unknown }[] } } }
  ).diagnostics?.clientSideRequestStatistics?.gatewayStatistics;
  const failed = stats?.filter((s) => typeof s.statusCode === "number" && s.statusCode >= 400).at(-1);
  return failed?.statusCode as number | undefined;
}

/** Translates throttling (429), timeouts (408) and outages (503) into SERVICE_UNAVAILABLE; everything else is rethrown as is. */
export function translateCosmosError(error: unknown): never {
  if (error instanceof AppError) throw error;
  if (isTransient(cosmosStatus(error) ?? diagnosedStatus(error))) throw storeBusy(error);
  throw error;
}

/**
 * The container every adapter uses: each SDK call made through it (container, `items`, `item()`, query
 * iterators) has its failures passed through translateCosmosError, so throttling that outlasts the SDK's
 * own retries reaches the API as 503 with Retry-After, never as a bare 500, and no adapter has to
 * remember to catch it. 404/409/412 pass through unchanged for the adapters that expect them.
 */
export function guardContainer(container: Container): Container {
  return guard(container);
}

const guarded = new WeakMap<object, object>();

function guard<T extends object>(target: T): T {
  const known = guarded.get(target);
  if (known !== undefined) return known as T;
  const proxy = new Proxy(target, {
    get(obj, prop) {
      const value: unknown = Reflect.get(obj, prop, obj);
      if (typeof value === "function") {
        return (...args: unknown[]) => guardResult((value as (...a: unknown[]) => unknown).apply(obj, args));
      }
      // `container.items` is a getter; its methods and the iterators they return go through the guard too.
      return prop === "items" && typeof value === "object" && value !== null ? guard(value) : value;
    },
  });
  guarded.set(target, proxy);
  return proxy;
}

function guardResult(result: unknown): unknown {
  if (result instanceof Promise) return result.catch(translateCosmosError);
  // Item, QueryIterator, ChangeFeed iterators: their calls are SDK calls as well.
  if (typeof result === "object" && result !== null && !Array.isArray(result)) return guard(result);
  return result;
}

/** Drops the Cosmos system properties from a stored document. */
export function stripSystem<T extends object>(doc: T): T {
  const out = { ...doc } as Record<string, unknown>;
  for (const key of ["_rid", "_self", "_etag", "_ts", "_attachments", "_lsn"]) delete out[key];
  return out as T;
}
