/**
 * Child process: the Cosmos DB stand-in (@vercel/cosmosdb-server) on loopback, made durable.
 *
 * The stand-in keeps everything in memory. This process therefore
 * - appends every write the stand-in acknowledges (databases, containers, documents) to a journal
 *   before the response leaves, so a crash loses nothing that was accepted;
 * - at start, replays the newest snapshot and the journals after it straight into the stand-in's
 *   memory, then compacts them into a new snapshot;
 * - writes a snapshot periodically and when the local runtime goes away (it closes our IPC channel).
 * A snapshot is written synchronously, between two requests, so it is one consistent point in time,
 * and the journal that follows it holds exactly the later writes.
 *
 * argv: <port> <data dir> <snapshot seconds>. IPC out: { type: "ready", documents }.
 */
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeSync, appendFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { join } from "node:path";
import { Readable } from "node:stream";
import { createHttpServer } from "@vercel/cosmosdb-server";

/** One line of a journal or snapshot. */
export type JournalEntry =
  | { op: "db"; db: string }
  | { op: "coll"; db: string; coll: string; def: Record<string, unknown> }
  | { op: "dropdb"; db: string }
  | { op: "dropcoll"; db: string; coll: string }
  | { op: "put"; db: string; coll: string; doc: Record<string, unknown> }
  | { op: "del"; db: string; coll: string; id: string; pk: unknown };

// The stand-in's in-memory model, as far as this file uses it.
interface StandInItem {
  read(): Record<string, unknown> | undefined;
}
interface StandInItems {
  _data: Map<string, StandInItem>;
  create(data: Record<string, unknown>): unknown;
  upsert(data: Record<string, unknown>): unknown;
  delete(idOrRid: string, partition?: unknown): void;
}
interface StandInCollection extends StandInItem {
  documents: StandInItems;
}
interface StandInDatabase extends StandInItem {
  collections: StandInItems;
  collection(id: string): StandInCollection;
}
interface StandInAccount {
  databases: StandInItems;
  database(id: string): StandInDatabase;
}

const SYSTEM = ["_rid", "_self", "_etag", "_ts", "_attachments", "_docs", "_sprocs", "_triggers", "_udfs", "_conflicts"];
const FILE = /^(\d{8})\.(snapshot|journal)\.jsonl$/;

function strip(value: Record<string, unknown>): Record<string, unknown> {
  const out = { ...value };
  for (const key of SYSTEM) delete out[key];
  return out;
}

/** Captures the stand-in's account object when its server starts listening (it is not exported). */
function captureAccount(): () => StandInAccount {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const module = require("@vercel/cosmosdb-server/lib/account") as { default: new (...args: unknown[]) => StandInAccount };
  const Original = module.default;
  let captured: StandInAccount | undefined;
  module.default = class extends (Original as new (...args: unknown[]) => object) {
    constructor(...args: unknown[]) {
      super(...args);
      captured = this as unknown as StandInAccount;
    }
  } as unknown as typeof module.default;
  return () => {
    if (captured === undefined) throw new Error("the Cosmos stand-in has not started");
    return captured;
  };
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
      if (db.read() !== undefined && db.collection(entry.coll).read() === undefined) db.collections.create({ ...entry.def, id: entry.coll });
      return;
    }
    case "dropcoll": {
      const db = account.database(entry.db);
      if (db.read() !== undefined && db.collection(entry.coll).read() !== undefined) db.collections.delete(entry.coll);
      return;
    }
    case "put": {
      const coll = account.database(entry.db).collection(entry.coll);
      if (coll.read() !== undefined) coll.documents.upsert(entry.doc);
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
      yield { op: "coll", db, coll, def: strip(def) };
      for (const docItem of database.collection(coll).documents._data.values()) {
        const doc = docItem.read();
        if (doc !== undefined) yield { op: "put", db, coll, doc: strip(doc) };
      }
    }
  }
}

class Store {
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

  /** Replays the newest snapshot and every journal after it. */
  restore(account: StandInAccount): void {
    const files = this.files();
    const snapshot = [...files].reverse().find((f) => f.kind === "snapshot");
    for (const file of files) {
      if (snapshot !== undefined && (file.gen < snapshot.gen || (file.kind === "snapshot" && file !== snapshot))) continue;
      for (const line of readFileSync(file.path, "utf8").split("\n")) {
        if (line.trim() === "") continue;
        let entry: JournalEntry;
        try {
          entry = JSON.parse(line) as JournalEntry;
        } catch {
          continue; // a line torn by a crash mid-write was never acknowledged
        }
        apply(account, entry);
      }
    }
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
}

const DOCS = /^\/dbs\/([^/?]+)(?:\/colls\/([^/?]+)(?:\/docs(?:\/([^/?]+))?)?)?\/?(?:\?.*)?$/;

function partitionValue(header: string | string[] | undefined): unknown {
  if (typeof header !== "string") return undefined;
  try {
    const parsed: unknown = JSON.parse(header);
    return Array.isArray(parsed) ? parsed[0] : parsed;
  } catch {
    return undefined;
  }
}

/** The journal entries for one acknowledged request (none for reads and queries). */
function journalEntries(req: IncomingMessage, requestBody: Buffer, status: number, responseBody: string): JournalEntry[] {
  const match = DOCS.exec(req.url ?? "");
  if (match === null || status < 200 || status > 299) return [];
  const db = decodeURIComponent(match[1] ?? "");
  const coll = match[2] === undefined ? undefined : decodeURIComponent(match[2]);
  const isDocs = /\/docs(\/|$|\?)/.test(req.url ?? "");
  const docId = match[3] === undefined ? undefined : decodeURIComponent(match[3]);
  if (!isDocs) {
    // Creations are journalled from their responses (creationEntries); here only drops.
    if (req.method !== "DELETE") return [];
    return coll === undefined ? [{ op: "dropdb", db }] : [{ op: "dropcoll", db, coll }];
  }
  if (coll === undefined) return [];
  if (req.method === "DELETE" && docId !== undefined) {
    return [{ op: "del", db, coll, id: docId, pk: partitionValue(req.headers["x-ms-documentdb-partitionkey"]) }];
  }
  if (req.headers["x-ms-cosmos-is-batch-request"] !== undefined) {
    const ops = JSON.parse(requestBody.toString()) as { operationType?: string; id?: string; partitionKey?: string }[];
    const results = JSON.parse(responseBody) as { statusCode?: number; resourceBody?: Record<string, unknown> }[];
    const entries: JournalEntry[] = [];
    results.forEach((result, i) => {
      const op = ops[i];
      if (op === undefined || result.statusCode === undefined || result.statusCode > 299) return;
      if (op.operationType === "Delete" && op.id !== undefined) entries.push({ op: "del", db, coll, id: op.id, pk: partitionValue(op.partitionKey) });
      else if (op.operationType !== "Read" && result.resourceBody !== undefined) entries.push({ op: "put", db, coll, doc: strip(result.resourceBody) });
    });
    return entries;
  }
  const doc = JSON.parse(responseBody) as Record<string, unknown>;
  return typeof doc.id === "string" ? [{ op: "put", db, coll, doc: strip(doc) }] : [];
}

/** Database and container creations are journalled from their responses too. */
function creationEntries(req: IncomingMessage, status: number, responseBody: string): JournalEntry[] {
  if (req.method !== "POST" || status !== 201) return [];
  const url = req.url ?? "";
  const body = JSON.parse(responseBody) as Record<string, unknown>;
  if (/^\/dbs\/?(\?.*)?$/.test(url)) return [{ op: "db", db: String(body.id) }];
  const m = /^\/dbs\/([^/?]+)\/colls\/?(\?.*)?$/.exec(url);
  if (m?.[1] !== undefined) return [{ op: "coll", db: decodeURIComponent(m[1]), coll: String(body.id), def: strip(body) }];
  return [];
}

function isWrite(req: IncomingMessage): boolean {
  if (req.method === "GET" || req.method === "HEAD") return false;
  if (req.method === "POST" && req.headers["x-ms-documentdb-isquery"] !== undefined) return false;
  return (req.url ?? "").startsWith("/dbs");
}

function main(): void {
  const [portText, dir, snapshotSecondsText] = process.argv.slice(2);
  if (portText === undefined || dir === undefined) throw new Error("usage: cosmos-server <port> <data dir> [snapshot seconds]");
  const snapshotSeconds = Number(snapshotSecondsText ?? 300);
  const account = captureAccount();
  const store = new Store(dir);
  const server = createHttpServer({ keepAlive: true });
  const [standIn] = server.listeners("request") as ((req: IncomingMessage, res: ServerResponse) => void)[];
  if (standIn === undefined) throw new Error("the Cosmos stand-in registered no request handler");
  server.removeAllListeners("request");
  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    if (!isWrite(req)) {
      standIn(req, res);
      return;
    }
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      // The stand-in reads the body as a stream; hand it a replay of the buffered bytes.
      const replay = Object.assign(Readable.from([body]), { headers: req.headers, url: req.url, method: req.method });
      const end = res.end.bind(res) as (chunk?: unknown) => ServerResponse;
      res.end = ((chunk?: unknown) => {
        const text = typeof chunk === "string" ? chunk : Buffer.isBuffer(chunk) ? chunk.toString() : "";
        if (res.statusCode >= 200 && res.statusCode <= 299 && text !== "") {
          store.append([...creationEntries(req, res.statusCode, text), ...journalEntries(req, body, res.statusCode, text)]);
        } else if (req.method === "DELETE" && res.statusCode === 204) {
          store.append(journalEntries(req, body, 200, "{}"));
        }
        return end(chunk);
      }) as typeof res.end;
      standIn(replay as unknown as IncomingMessage, res);
    });
  });
  server.keepAliveTimeout = 65_000;
  server.listen(Number(portText), "127.0.0.1", () => {
    store.restore(account());
    const documents = store.snapshot(account());
    process.send?.({ type: "ready", documents });
  });

  let last = Date.now();
  const timer = setInterval(() => {
    if (store.unsnapshottedBytes > 64 * 1024 * 1024 || (store.unsnapshottedBytes > 0 && Date.now() - last > snapshotSeconds * 1000)) {
      store.snapshot(account());
      last = Date.now();
    }
  }, 5000);
  timer.unref();
  // The runtime stops us by closing the channel (also when it crashed): compact, then exit. Signals
  // sent to the whole process group (Ctrl-C, a service manager) must not end us before that.
  process.on("disconnect", () => {
    try {
      store.snapshot(account());
    } finally {
      process.exit(0);
    }
  });
  process.on("SIGTERM", () => {});
  process.on("SIGINT", () => {});
}

main();
