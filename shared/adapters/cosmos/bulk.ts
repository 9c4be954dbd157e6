import { BulkOperationType, type Container, type JSONObject, type OperationInput } from "@azure/cosmos";
import { stripSystem } from "./cosmos-errors";

const CHUNK = 1000;

export interface DocRef {
  id: string;
  partitionKey: string;
}

async function bulkWithRetry(container: Container, operations: OperationInput[]): Promise<{ statusCode: number; resourceBody?: JSONObject }[]> {
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

/** Reads many documents by id and partition key; missing ones are absent from the map (key: `${partitionKey}|${id}`). */
export async function bulkRead<T extends object>(container: Container, refs: readonly DocRef[]): Promise<Map<string, T>> {
  const found = new Map<string, T>();
  for (let start = 0; start < refs.length; start += CHUNK) {
    const chunk = refs.slice(start, start + CHUNK);
    const results = await bulkWithRetry(
      container,
      chunk.map((r) => ({ operationType: BulkOperationType.Read, id: r.id, partitionKey: r.partitionKey })),
    );
    results.forEach((result, i) => {
      const ref = chunk[i];
      if (ref === undefined) return;
      if (result.statusCode === 200 && result.resourceBody !== undefined) {
        found.set(refKey(ref), stripSystem(result.resourceBody as unknown as T));
      } else if (result.statusCode !== 404) {
        throw new Error(`bulk read of ${container.id}/${ref.id} failed with ${result.statusCode}`);
      }
    });
  }
  return found;
}

/** Upserts many documents; throws if any write fails after retries. */
export async function bulkUpsert(container: Container, docs: readonly JSONObject[]): Promise<void> {
  for (let start = 0; start < docs.length; start += CHUNK) {
    const chunk = docs.slice(start, start + CHUNK);
    const results = await bulkWithRetry(
      container,
      chunk.map((doc) => ({ operationType: BulkOperationType.Upsert, resourceBody: doc })),
    );
    const failed = results.find((r) => r.statusCode < 200 || r.statusCode > 299);
    if (failed !== undefined) throw new Error(`bulk upsert into ${container.id} failed with ${failed.statusCode}`);
  }
}

/** Deletes many documents; already-missing ones are fine. */
export async function bulkDelete(container: Container, refs: readonly DocRef[]): Promise<void> {
  for (let start = 0; start < refs.length; start += CHUNK) {
    const chunk = refs.slice(start, start + CHUNK);
    const results = await bulkWithRetry(
      container,
      chunk.map((r) => ({ operationType: BulkOperationType.Delete, id: r.id, partitionKey: r.partitionKey })),
    );
    const failed = results.find((r) => r.statusCode !== 404 && (r.statusCode < 200 || r.statusCode > 299));
    if (failed !== undefined) throw new Error(`bulk delete in ${container.id} failed with ${failed.statusCode}`);
  }
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
