import { isDeepStrictEqual } from "node:util";
import { BulkOperationType, type Container, type JSONObject, type OperationInput } from "@azure/cosmos";
import { AppError } from "../../domain/errors";
import { containerDefinitions } from "./containers";
import { isTransient, stripSystem, storeBusy } from "./cosmos-errors";
import { AGAIN, retry, THROTTLING } from "./retry";

export interface DocRef {
  id: string;
  partitionKey: string;
}

/** The SDK sends at most 100 operations per partition key range in one bulk call. */
const BULK_CALL = 100;
const PARALLEL_CALLS = 8;
export interface BulkResult {
  statusCode: number;
  resourceBody?: JSONObject;
  eTag?: string;
}

/**
 * Every bulk operation carries its partition key: real Cosmos DB rejects one without it (the local
 * stand-in does not). Writes that name none get it from their document at the container's partition key
 * path, so no caller can forget it.
 */
function withPartitionKey(container: Container, op: OperationInput): OperationInput {
  if (op.partitionKey !== undefined) return op;
  const path = containerDefinitions.find((d) => d.id === container.id)?.partitionKey;
  const body = "resourceBody" in op ? (op.resourceBody as Record<string, unknown> | undefined) : undefined;
  const value = path === undefined || body === undefined ? undefined : body[path.slice(1)];
  if (typeof value !== "string")
    throw new Error(`bulk ${op.operationType} in ${container.id} has no partition key (${path ?? "unknown path"})`);
  return { ...op, partitionKey: value };
}

/**
 * Why the deprecated `items.bulk` and not `items.executeBulkOperations`: the latter works against the
 * stand-in (batch requests with x-ms-cosmos-is-batch-request, per-operation failures as `error`), but in
 * @azure/cosmos 4.9.3 its BulkHelper.execute waits for partial batches in a loop that sleeps a fixed
 * 1000 ms (intervalForPartialBatchInMs), so every call that does not fill whole 100-operation batches
 * takes at least a second: a bulkRead of a few documents on a GET would gain a second. Revisit when the
 * SDK flushes partial batches without that sleep.
 */
async function bulkCall(container: Container, operations: OperationInput[]): Promise<BulkResult[]> {
  const results = new Array<BulkResult>(operations.length);
  let pending = operations.map((op, index) => ({ op, index }));
  if (pending.length === 0) return results;
  let refusal: unknown;
  // items.bulk retries neither an operation answered 429/408/503 nor a batch request throttled as a
  // whole (seen against a throttling proxy): those are retried here, the rest kept as answered.
  return retry(
    THROTTLING,
    async () => {
      let response: Awaited<ReturnType<Container["items"]["bulk"]>>;
      try {
        response = await container.items.bulk(
          pending.map((p) => p.op),
          { continueOnError: true },
        );
      } catch (error) {
        // The guarded container turned a throttled batch request into a retryable SERVICE_UNAVAILABLE.
        if (!(error instanceof AppError && error.retryable)) throw error;
        refusal = error;
        return AGAIN;
      }
      refusal = undefined;
      const throttled: typeof pending = [];
      response.forEach((r, i) => {
        const item = pending[i];
        if (item === undefined) return;
        if (isTransient(r.statusCode)) throttled.push(item);
        else
          results[item.index] = {
            statusCode: r.statusCode,
            ...(r.resourceBody !== undefined ? { resourceBody: r.resourceBody } : {}),
            ...(r.eTag !== undefined ? { eTag: r.eTag } : {}),
          };
      });
      pending = throttled;
      return throttled.length > 0 ? AGAIN : results;
    },
    // Still throttled after every retry: the caller answers 503 with Retry-After, not a bare failure.
    () => {
      throw refusal instanceof AppError
        ? refusal
        : storeBusy(
            new Error(`bulk operations in ${container.id} still throttled after retries (${pending.length} left)`),
          );
    },
  );
}

/**
 * Runs operations in bulk calls of 100, several at once, retrying throttled ones; results in input
 * order. Operations still throttled after the retries fail the whole call with SERVICE_UNAVAILABLE.
 */
export async function bulkWithRetry(
  container: Container,
  operations: readonly OperationInput[],
): Promise<BulkResult[]> {
  const keyed = operations.map((op) => withPartitionKey(container, op));
  const results = new Array<BulkResult>(keyed.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < keyed.length) {
      const start = next;
      next += BULK_CALL;
      const chunk = await bulkCall(container, keyed.slice(start, start + BULK_CALL));
      chunk.forEach((r, i) => (results[start + i] = r));
    }
  };
  await Promise.all(Array.from({ length: PARALLEL_CALLS }, worker));
  return results;
}

/**
 * Reads many documents by id and partition key; missing ones are absent from the map (key:
 * `${partitionKey}|${id}`). System properties are dropped unless `keepEtag` (for a conditional write).
 */
export async function bulkRead<T extends object>(
  container: Container,
  refs: readonly DocRef[],
  keepEtag = false,
): Promise<Map<string, T>> {
  const found = new Map<string, T>();
  const results = await bulkWithRetry(
    container,
    refs.map((r) => ({ operationType: BulkOperationType.Read, id: r.id, partitionKey: r.partitionKey })),
  );
  results.forEach((result, i) => {
    const ref = refs[i];
    if (ref === undefined) return;
    if (result.statusCode === 200 && result.resourceBody !== undefined) {
      const body = result.resourceBody as unknown as T & { _etag?: string };
      found.set(refKey(ref), keepEtag ? { ...stripSystem(body), _etag: body._etag } : stripSystem(body));
    } else if (result.statusCode !== 404) {
      throw new Error(`bulk read of ${container.id}/${ref.id} failed with ${result.statusCode}`);
    }
  });
  return found;
}

/** Upserts many documents; throws if any write fails after retries. */
export async function bulkUpsert(container: Container, docs: readonly JSONObject[]): Promise<void> {
  const results = await bulkWithRetry(
    container,
    docs.map((doc) => ({ operationType: BulkOperationType.Upsert, resourceBody: doc })),
  );
  const failed = results.find((r) => r.statusCode < 200 || r.statusCode > 299);
  if (failed !== undefined) throw new Error(`bulk upsert into ${container.id} failed with ${failed.statusCode}`);
}

/** Deletes many documents; already-missing ones are fine. */
export async function bulkDelete(container: Container, refs: readonly DocRef[]): Promise<void> {
  const results = await bulkWithRetry(
    container,
    refs.map((r) => ({ operationType: BulkOperationType.Delete, id: r.id, partitionKey: r.partitionKey })),
  );
  const failed = results.find((r) => r.statusCode !== 404 && (r.statusCode < 200 || r.statusCode > 299));
  if (failed !== undefined) throw new Error(`bulk delete in ${container.id} failed with ${failed.statusCode}`);
}

export const refKey = (ref: DocRef): string => `${ref.partitionKey}|${ref.id}`;

/** Whether two stored forms carry the same data, ignoring bookkeeping fields (and version metadata) and key order. */
export function sameContent(
  a: object,
  b: object,
  ignore: readonly string[] = ["updatedAt", "createdAt", "recorded"],
): boolean {
  return isDeepStrictEqual(dataOf(a, ignore), dataOf(b, ignore));
}

function dataOf(value: object, ignore: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(stripSystem(value as Record<string, unknown>)).filter(
      ([k, v]) => !ignore.includes(k) && v !== undefined,
    ),
  );
}
