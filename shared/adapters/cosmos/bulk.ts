import { BulkOperationType, type Container, type JSONObject, type OperationInput } from "@azure/cosmos";
import { stripSystem } from "./cosmos-errors";

export interface DocRef {
  id: string;
  partitionKey: string;
}

/** The SDK sends at most 100 operations per partition key range in one bulk call. */
const BULK_CALL = 100;
const PARALLEL_CALLS = 8;

async function bulkCall(container: Container, operations: OperationInput[]): Promise<{ statusCode: number; resourceBody?: JSONObject }[]> {
  const results: { statusCode: number; resourceBody?: JSONObject }[] = new Array(operations.length);
  let pending = operations.map((op, index) => ({ op, index }));
  for (let attempt = 0; pending.length > 0; attempt++) {
    const response = await container.items.bulk(pending.map((p) => p.op), { continueOnError: true });
    const retry: typeof pending = [];
    response.forEach((r, i) => {
      const item = pending[i];
      if (item === undefined) return;
      if ((r.statusCode === 429 || r.statusCode === 503 || r.statusCode === 408) && attempt < 8) retry.push(item);
      else results[item.index] = { statusCode: r.statusCode, ...(r.resourceBody !== undefined ? { resourceBody: r.resourceBody } : {}) };
    });
    pending = retry;
    if (retry.length > 0) await new Promise((r) => setTimeout(r, 50 * 2 ** attempt));
  }
  return results;
}

/** Runs operations in bulk calls of 100, several at once, retrying throttled ones; results in input order. */
export async function bulkWithRetry(container: Container, operations: readonly OperationInput[]): Promise<{ statusCode: number; resourceBody?: JSONObject }[]> {
  const results: { statusCode: number; resourceBody?: JSONObject }[] = new Array(operations.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < operations.length) {
      const start = next;
      next += BULK_CALL;
      const chunk = await bulkCall(container, operations.slice(start, start + BULK_CALL));
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
export async function bulkRead<T extends object>(container: Container, refs: readonly DocRef[], keepEtag = false): Promise<Map<string, T>> {
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
      found.set(refKey(ref), keepEtag ? ({ ...stripSystem(body), _etag: body._etag } as T) : stripSystem(body));
    } else if (result.statusCode !== 404) {
      throw new Error(`bulk read of ${container.id}/${ref.id} failed with ${result.statusCode}`);
    }
  });
  return found;
}

/** Upserts many documents; throws if any write fails after retries. */
export async function bulkUpsert(container: Container, docs: readonly JSONObject[]): Promise<void> {
  const results = await bulkWithRetry(container, docs.map((doc) => ({ operationType: BulkOperationType.Upsert, resourceBody: doc })));
  const failed = results.find((r) => r.statusCode < 200 || r.statusCode > 299);
  if (failed !== undefined) throw new Error(`bulk upsert into ${container.id} failed with ${failed.statusCode}`);
}

/** Deletes many documents; already-missing ones are fine. */
export async function bulkDelete(container: Container, refs: readonly DocRef[]): Promise<void> {
  const results = await bulkWithRetry(container, refs.map((r) => ({ operationType: BulkOperationType.Delete, id: r.id, partitionKey: r.partitionKey })));
  const failed = results.find((r) => r.statusCode !== 404 && (r.statusCode < 200 || r.statusCode > 299));
  if (failed !== undefined) throw new Error(`bulk delete in ${container.id} failed with ${failed.statusCode}`);
}

export const refKey = (ref: DocRef): string => `${ref.partitionKey}|${ref.id}`;

/** Whether two stored forms carry the same data, ignoring bookkeeping fields. */
export function sameContent(a: object, b: object, ignore: readonly string[] = ["updatedAt", "createdAt"]): boolean {
  return canonical(a, ignore) === canonical(b, ignore);
}

function canonical(value: object, ignore: readonly string[]): string {
  const entries = Object.entries(stripSystem(value as Record<string, unknown>))
    .filter(([k, v]) => !ignore.includes(k) && v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : 1));
  return JSON.stringify(entries.map(([k, v]) => [k, v !== null && typeof v === "object" && !Array.isArray(v) ? canonical(v as object, []) : v]));
}
