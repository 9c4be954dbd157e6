/** The copies of the versions a change replaces, in the `versions` container (steps 1 and 3 of versioned-writes.ts). */
import { BulkOperationType, type Container, type JSONObject } from "@azure/cosmos";
import { bulkRead, bulkWithRetry, refKey, type BulkResult } from "../bulk";
import { versionIdOf, type VersionDoc } from "./version-docs";

const ok = (r: BulkResult | undefined): boolean => r !== undefined && r.statusCode >= 200 && r.statusCode <= 299;

/** Step 1: creates each copy unless it is there (an earlier attempt's, identical, or already closed). */
export async function createCopies(versions: Container, copies: readonly VersionDoc[]): Promise<void> {
  const results = await bulkWithRetry(
    versions,
    copies.map((doc) => ({
      operationType: BulkOperationType.Create,
      partitionKey: doc.key,
      resourceBody: doc as unknown as JSONObject,
    })),
  );
  const failed = results.find((r) => r.statusCode !== 409 && !ok(r));
  if (failed !== undefined) throw new Error(`storing versions failed with ${failed.statusCode}`);
}

/**
 * Step 3: each replaced version's copy closed at its successor's instant; and the copy of the version
 * before it, if a crash between steps 2 and 3 of that earlier change left it open (read first: one
 * small point read per change).
 */
export async function closeCopies(versions: Container, copies: readonly VersionDoc[]): Promise<void> {
  if (copies.length === 0) return;
  const closed = [...copies];
  const earlier = closed.flatMap((copy) =>
    copy.version < 2
      ? []
      : [{ id: versionIdOf(copy.recordId, copy.version - 1), partitionKey: copy.key, closeAt: copy.recordedFrom }],
  );
  const stillOpen = await bulkRead<VersionDoc>(versions, earlier);
  for (const e of earlier) {
    const doc = stillOpen.get(refKey(e));
    if (doc !== undefined && doc.recordedTo === null) closed.push({ ...doc, recordedTo: e.closeAt });
  }
  const results = await bulkWithRetry(
    versions,
    closed.map((doc) => ({
      operationType: BulkOperationType.Upsert,
      partitionKey: doc.key,
      resourceBody: doc as unknown as JSONObject,
    })),
  );
  const failed = results.find((r) => !ok(r));
  if (failed !== undefined) throw new Error(`closing versions failed with ${failed.statusCode}`);
}
