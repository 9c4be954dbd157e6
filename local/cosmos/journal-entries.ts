/**
 * The journal store's lines: what each entry means to the stand-in's memory (apply), and the whole
 * state as entries (a snapshot).
 */
import { lsnOf, withRecordedVersion } from "./change-feed";
import { checkDocuments, type Doc, type StandInAccount, type StandInDocuments } from "./stand-in-internals";

/** One line of a journal or snapshot. */
export type JournalEntry =
  | { op: "db"; db: string }
  | { op: "coll"; db: string; coll: string; def: Doc; ridCount?: number }
  | { op: "dropdb"; db: string }
  | { op: "dropcoll"; db: string; coll: string }
  // `lsn` and `ts`: the change-feed position and `_ts` the write had (absent in data from before them).
  | { op: "put"; db: string; coll: string; doc: Doc; lsn?: number; ts?: number }
  | { op: "del"; db: string; coll: string; id: string; pk: unknown }
  // After a container's documents in a snapshot written between requests: its _rid counter by then, at
  // least every _rid the snapshot holds of it (a document created meanwhile may be among them).
  | { op: "rids"; db: string; coll: string; ridCount: number };

const SYSTEM = [
  "_rid",
  "_self",
  "_etag",
  "_ts",
  "_attachments",
  "_docs",
  "_sprocs",
  "_triggers",
  "_udfs",
  "_conflicts",
];

/** A resource without the system properties the stand-in assigns again when it is stored. */
export function strip(value: Doc): Doc {
  const out = { ...value };
  for (const key of SYSTEM) delete out[key];
  return out;
}

/** Applies one entry to the stand-in's memory; entries that no longer apply (a drop of what is gone) do nothing. */
export function apply(account: StandInAccount, entry: JournalEntry): void {
  switch (entry.op) {
    case "db":
      if (account.database(entry.db).read() === undefined) account.databases.create({ id: entry.db });
      return;
    case "dropdb":
      if (account.database(entry.db).read() !== undefined) account.databases.delete(entry.db);
      return;
    case "coll": {
      const db = account.database(entry.db);
      if (db.read() === undefined || db.collection(entry.coll).read() !== undefined) return;
      db.collections.create({ ...entry.def, id: entry.coll });
      const documents = checkDocuments(db.collection(entry.coll).documents);
      if (entry.ridCount !== undefined) documents._ridCount = Math.max(documents._ridCount, entry.ridCount);
      return;
    }
    case "dropcoll": {
      const db = account.database(entry.db);
      if (db.read() !== undefined && db.collection(entry.coll).read() !== undefined) db.collections.delete(entry.coll);
      return;
    }
    case "put": {
      const coll = account.database(entry.db).collection(entry.coll);
      if (coll.read() === undefined) return;
      const put = entry;
      withRecordedVersion({ lsn: put.lsn, ts: put.ts }, () => putDocument(coll.documents, put.doc));
      return;
    }
    case "rids": {
      const coll = account.database(entry.db).collection(entry.coll);
      if (coll.read() === undefined) return;
      const documents = checkDocuments(coll.documents);
      documents._ridCount = Math.max(documents._ridCount, entry.ridCount);
      return;
    }
    case "del": {
      const coll = account.database(entry.db).collection(entry.coll);
      try {
        coll.documents.delete(entry.id, entry.pk);
      } catch {
        // already gone
      }
    }
  }
}

/**
 * A snapshot's documents keep their system properties and go straight into the store: a million
 * upserts would each make a new _rid and etag (half a minute); this takes seconds, and etags stay
 * valid across a restart. Journal entries (no _rid) are upserts as they were made.
 */
function putDocument(documents: StandInDocuments, doc: Doc): void {
  const rid = doc._rid;
  if (typeof rid === "string" && !documents._data.has(rid)) documents._set(doc);
  else documents.upsert(strip(doc));
}

/**
 * The whole state as entries: each database, its containers, their documents with system properties.
 * `changing`: the state may change while the entries are read (see JournalStore.snapshotInBackground),
 * so each container's _rid counter is also given after its documents.
 */
export function* snapshotEntries(account: StandInAccount, changing = false): Generator<JournalEntry> {
  for (const dbItem of account.databases._data.values()) {
    const dbData = dbItem.read();
    if (dbData === undefined) continue;
    const db = String(dbData.id);
    yield { op: "db", db };
    const database = account.database(db);
    for (const collItem of database.collections._data.values()) {
      const def = collItem.read();
      if (def === undefined) continue;
      const coll = String(def.id);
      const documents = database.collection(coll).documents;
      yield { op: "coll", db, coll, def: strip(def), ridCount: documents._ridCount };
      for (const docItem of documents._data.values()) {
        const doc = docItem.read();
        const lsn = lsnOf(documents, doc?._rid);
        if (doc !== undefined) yield { op: "put", db, coll, doc, ...(lsn !== undefined ? { lsn } : {}) };
      }
      if (changing) yield { op: "rids", db, coll, ridCount: documents._ridCount };
    }
  }
}

/** Documents held in every container. */
export function countDocuments(account: StandInAccount): number {
  let count = 0;
  for (const dbItem of account.databases._data.values()) {
    const db = dbItem.read();
    if (db === undefined) continue;
    const database = account.database(String(db.id));
    for (const collItem of database.collections._data.values()) {
      const coll = collItem.read();
      if (coll !== undefined) count += database.collection(String(coll.id)).documents._data.size;
    }
  }
  return count;
}
