/**
 * Child process: the Cosmos DB stand-in (@vercel/cosmosdb-server) on loopback, with a write journal.
 * Every document write the stand-in acknowledges is appended to the journal before the response leaves,
 * so a crash loses nothing that was accepted; the parent replays the journal at the next start.
 *
 * argv: <port> <journal-file>. IPC: { type: "rotate", file } switches journals and answers { type: "rotated" }.
 */
import { appendFileSync, openSync, closeSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { Readable } from "node:stream";
import { createHttpServer } from "@vercel/cosmosdb-server";

export interface JournalEntry {
  op: "put" | "del";
  db: string;
  coll: string;
  /** put: the document as stored (system properties removed). */
  doc?: Record<string, unknown>;
  /** del: the id and partition key value. */
  id?: string;
  pk?: unknown;
}

const DOCS = /^\/dbs\/([^/]+)\/colls\/([^/]+)\/docs(?:\/([^/?]+))?\/?(?:\?.*)?$/;
const SYSTEM = ["_rid", "_self", "_etag", "_ts", "_attachments"];

let journalFd = -1;

function openJournal(file: string): void {
  if (journalFd >= 0) closeSync(journalFd);
  journalFd = openSync(file, "a");
}

function strip(doc: Record<string, unknown>): Record<string, unknown> {
  const out = { ...doc };
  for (const key of SYSTEM) delete out[key];
  return out;
}

function partitionValue(header: string | string[] | undefined): unknown {
  if (typeof header !== "string") return undefined;
  try {
    const parsed: unknown = JSON.parse(header);
    return Array.isArray(parsed) ? parsed[0] : parsed;
  } catch {
    return undefined;
  }
}

function journalEntries(req: IncomingMessage, requestBody: Buffer, status: number, responseBody: string): JournalEntry[] {
  const match = DOCS.exec(req.url ?? "");
  if (match === null || status < 200 || status > 299) return [];
  const db = decodeURIComponent(match[1] ?? "");
  const coll = decodeURIComponent(match[2] ?? "");
  const docId = match[3] === undefined ? undefined : decodeURIComponent(match[3]);
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
      if (op.operationType === "Delete") entries.push({ op: "del", db, coll, id: op.id, pk: partitionValue(op.partitionKey) });
      else if (op.operationType !== "Read" && result.resourceBody !== undefined) entries.push({ op: "put", db, coll, doc: strip(result.resourceBody) });
    });
    return entries;
  }
  const doc = JSON.parse(responseBody) as Record<string, unknown>;
  return typeof doc.id === "string" ? [{ op: "put", db, coll, doc: strip(doc) }] : [];
}

function isDocumentWrite(req: IncomingMessage): boolean {
  if (req.method === "GET" || req.method === "HEAD") return false;
  if (req.method === "POST" && req.headers["x-ms-documentdb-isquery"] !== undefined) return false;
  return DOCS.test(req.url ?? "");
}

function main(): void {
  const [portText, journal] = process.argv.slice(2);
  if (portText === undefined || journal === undefined) throw new Error("usage: cosmos-server <port> <journal>");
  openJournal(journal);
  const server = createHttpServer({ keepAlive: true });
  const [standIn] = server.listeners("request") as ((req: IncomingMessage, res: ServerResponse) => void)[];
  if (standIn === undefined) throw new Error("the Cosmos stand-in registered no request handler");
  server.removeAllListeners("request");
  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    if (!isDocumentWrite(req)) {
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
        const entries = journalEntries(req, body, res.statusCode, text);
        if (entries.length > 0) appendFileSync(journalFd, entries.map((e) => JSON.stringify(e)).join("\n") + "\n");
        return end(chunk);
      }) as typeof res.end;
      standIn(replay as unknown as IncomingMessage, res);
    });
  });
  server.keepAliveTimeout = 65_000;
  server.listen(Number(portText), "127.0.0.1", () => process.send?.({ type: "ready" }));

  process.on("message", (message: { type?: string; file?: string }) => {
    if (message.type === "rotate" && message.file !== undefined) {
      openJournal(message.file);
      process.send?.({ type: "rotated" });
    }
  });
  // Never outlive the local runtime that started us, even when it was killed.
  // The parent stops us by closing the channel, after its final snapshot; signals sent to the whole
  // process group (Ctrl-C, a service manager) must not end the stand-in before that.
  process.on("disconnect", () => process.exit(0));
  process.on("SIGTERM", () => {});
  process.on("SIGINT", () => {});
}

main();
