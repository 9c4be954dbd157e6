/**
 * The Cosmos stand-in's durability on disk: numbered generations of a snapshot (the whole state) and a
 * journal (every acknowledged write after it), both JSON lines. Restore replays the newest snapshot and
 * the journals after it into the stand-in's memory; a snapshot starts the next generation.
 */
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readdirSync, readSync, renameSync, rmSync, statSync, writeSync, appendFileSync } from "node:fs";
import { join } from "node:path";
import { checkDocuments, type Doc, type StandInAccount } from "./stand-in-internals";

/** One line of a journal or snapshot. */
export type JournalEntry =
  | { op: "db"; db: string }
  | { op: "coll"; db: string; coll: string; def: Doc; ridCount?: number }
  | { op: "dropdb"; db: string }
  | { op: "dropcoll"; db: string; coll: string }
  | { op: "put"; db: string; coll: string; doc: Doc }
  | { op: "del"; db: string; coll: string; id: string; pk: unknown };

const SYSTEM = ["_rid", "_self", "_etag", "_ts", "_attachments", "_docs", "_sprocs", "_triggers", "_udfs", "_conflicts"];
const FILE = /^(\d{8})\.(snapshot|journal)\.jsonl$/;
const CHUNK = 16 << 20;

/** A resource without the system properties the stand-in assigns again when it is stored. */
export function strip(value: Doc): Doc {
  const out = { ...value };
  for (const key of SYSTEM) delete out[key];
  return out;
}

function apply(account: StandInAccount, entry: JournalEntry): void {
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
      const rid = entry.doc._rid;
      // A snapshot's documents keep their system properties and go straight into the store: a
      // million upserts would each make a new _rid and etag (half a minute); this takes seconds, and
      // etags stay valid across a restart. Journal entries (no _rid) are upserts as they were made.
      if (typeof rid === "string" && !coll.documents._data.has(rid)) coll.documents._set(entry.doc);
      else coll.documents.upsert(strip(entry.doc));
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

function* snapshotEntries(account: StandInAccount): Generator<JournalEntry> {
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
        if (doc !== undefined) yield { op: "put", db, coll, doc };
      }
    }
  }
}

/**
 * Calls `onLine` for every line of a file, reading it in chunks: a snapshot of a million documents is
 * larger than the biggest string V8 can hold, so it is never read whole.
 */
export function forEachLine(path: string, onLine: (line: string) => void): void {
  const fd = openSync(path, "r");
  try {
    const buffer = Buffer.allocUnsafe(CHUNK);
    let carry = Buffer.alloc(0);
    for (;;) {
      const read = readSync(fd, buffer, 0, CHUNK, null);
      if (read === 0) break;
      const chunk = carry.length > 0 ? Buffer.concat([carry, buffer.subarray(0, read)]) : buffer.subarray(0, read);
      let start = 0;
      for (let nl = chunk.indexOf(10, start); nl >= 0; nl = chunk.indexOf(10, start)) {
        if (nl > start) onLine(chunk.toString("utf8", start, nl));
        start = nl + 1;
      }
      // Copied: `buffer` is overwritten by the next read.
      carry = Buffer.from(chunk.subarray(start));
    }
    if (carry.length > 0) onLine(carry.toString("utf8"));
  } finally {
    closeSync(fd);
  }
}

export class JournalStore {
  private gen: number;
  private journalFd = -1;
  private journalBytes = 0;

  constructor(private readonly dir: string) {
    mkdirSync(dir, { recursive: true });
    this.gen = Math.max(0, ...this.files().map((f) => f.gen));
  }

  private files(): { gen: number; kind: string; path: string }[] {
    return readdirSync(this.dir)
      .map((name) => ({ m: FILE.exec(name), name }))
      .filter((f): f is { m: RegExpExecArray; name: string } => f.m !== null)
      .map(({ m, name }) => ({ gen: Number(m[1]), kind: m[2] ?? "", path: join(this.dir, name) }))
      .sort((a, b) => a.gen - b.gen || (a.kind === "snapshot" ? -1 : 1));
  }

  private path(gen: number, kind: "snapshot" | "journal"): string {
    return join(this.dir, `${String(gen).padStart(8, "0")}.${kind}.jsonl`);
  }

  /**
   * Replays the newest snapshot and every journal after it. When there was nothing after the snapshot,
   * it is the current state already and its journal continues (no compaction needed): a restart of a
   * million documents does not also write them all again.
   */
  restore(account: StandInAccount): { compacted: boolean } {
    const files = this.files();
    const snapshot = [...files].reverse().find((f) => f.kind === "snapshot");
    let journalled = 0;
    for (const file of files) {
      if (snapshot !== undefined && (file.gen < snapshot.gen || (file.kind === "snapshot" && file !== snapshot))) continue;
      forEachLine(file.path, (line) => {
        let entry: JournalEntry;
        try {
          entry = JSON.parse(line) as JournalEntry;
        } catch {
          return; // a line torn by a crash mid-write was never acknowledged
        }
        if (file.kind === "journal") journalled++;
        apply(account, entry);
      });
    }
    if (snapshot !== undefined && journalled === 0 && snapshot.gen === this.gen) {
      this.openJournal();
      return { compacted: true };
    }
    return { compacted: false };
  }

  /** Writes the whole state as the next generation's snapshot and starts that generation's journal. */
  snapshot(account: StandInAccount): number {
    const next = this.gen + 1;
    const finalPath = this.path(next, "snapshot");
    const tmp = `${finalPath}.tmp`;
    const fd = openSync(tmp, "w");
    let documents = 0;
    let buffer: string[] = [];
    let size = 0;
    const flush = (): void => {
      if (buffer.length > 0) writeSync(fd, buffer.join(""));
      buffer = [];
      size = 0;
    };
    for (const entry of snapshotEntries(account)) {
      if (entry.op === "put") documents++;
      const line = `${JSON.stringify(entry)}\n`;
      buffer.push(line);
      size += line.length;
      if (size > 1 << 20) flush();
    }
    flush();
    fsyncSync(fd);
    closeSync(fd);
    renameSync(tmp, finalPath);
    this.gen = next;
    this.openJournal();
    for (const file of this.files()) if (file.gen < next) rmSync(file.path, { force: true });
    return documents;
  }

  /** Documents held in every container. */
  static documents(account: StandInAccount): number {
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

  private openJournal(): void {
    if (this.journalFd >= 0) closeSync(this.journalFd);
    const path = this.path(this.gen, "journal");
    this.journalFd = openSync(path, "a");
    this.journalBytes = existsSync(path) ? statSync(path).size : 0;
  }

  append(entries: readonly JournalEntry[]): void {
    if (entries.length === 0) return;
    const text = `${entries.map((e) => JSON.stringify(e)).join("\n")}\n`;
    appendFileSync(this.journalFd, text);
    this.journalBytes += text.length;
  }

  get unsnapshottedBytes(): number {
    return this.journalBytes;
  }

  close(): void {
    if (this.journalFd >= 0) closeSync(this.journalFd);
    this.journalFd = -1;
  }
}
