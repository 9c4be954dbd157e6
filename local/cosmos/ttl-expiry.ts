/**
 * Cosmos DB time-to-live, which the stand-in lacks: a container created with `defaultTtl` expires its
 * documents `ttl` seconds (the document's own, else the container's; -1 never) after their last write
 * (`_ts`). Emulated here, in the stand-in, so that production code writes `ttl` exactly as it does for
 * Azure and never runs a purge of its own.
 */
import type { JournalEntry } from "./journal-entries";
import type { Doc, StandInAccount } from "./stand-in-internals";

/** Seconds a document lives after its last write, or undefined when it never expires. */
export function lifetimeOf(doc: Doc, defaultTtl: unknown): number | undefined {
  if (typeof defaultTtl !== "number") return undefined; // TTL off for the container: `ttl` is ignored
  const own = doc["ttl"];
  const ttl = typeof own === "number" && Number.isInteger(own) && own !== 0 ? own : defaultTtl;
  return ttl > 0 ? ttl : undefined;
}

/**
 * Deletes every document whose time to live has passed at `nowSeconds` and returns the deletions as
 * journal entries, so that the caller journals them like any acknowledged delete.
 */
export function expireDocuments(account: StandInAccount, nowSeconds: number): JournalEntry[] {
  const deleted: JournalEntry[] = [];
  for (const dbItem of account.databases._data.values()) {
    const db = dbItem.read()?.["id"];
    if (typeof db !== "string") continue;
    const database = account.database(db);
    for (const collItem of database.collections._data.values()) {
      const definition = collItem.read();
      const coll = definition?.["id"];
      if (typeof coll !== "string" || typeof definition?.["defaultTtl"] !== "number") continue;
      const documents = database.collection(coll).documents;
      const expired: Doc[] = [];
      for (const item of documents._data.values()) {
        const doc = item.read();
        if (doc === undefined) continue;
        const lifetime = lifetimeOf(doc, definition["defaultTtl"]);
        if (lifetime !== undefined && Number(doc["_ts"]) + lifetime <= nowSeconds) expired.push(doc);
      }
      for (const doc of expired) {
        const id = String(doc["id"]);
        const pk = documents._getPartition(doc);
        documents.delete(id, pk);
        deleted.push({ op: "del", db, coll, id, pk });
      }
    }
  }
  return deleted;
}
