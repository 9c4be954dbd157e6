/**
 * What the stand-in acknowledged, as journal entries: each write request's body and response are
 * captured, and the entries are appended before the response leaves, so a crash loses nothing accepted.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { Readable } from "node:stream";
import { strip, type JournalEntry } from "./journal-entries";
import type { JournalStore } from "./journal-store";
import { inPartition, NO_DOCUMENTS, partitionFromHeader } from "./partition-index";

export type RequestHandler = (req: IncomingMessage, res: ServerResponse) => void;

/** The change-feed position and `_ts` of a document as just stored (journalled with it, restored with it). */
export type VersionOf = (db: string, coll: string, doc: Record<string, unknown>) => { lsn?: number; ts?: number };

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
function journalEntries(
  req: IncomingMessage,
  requestBody: Buffer,
  status: number,
  responseBody: string,
  versionOf: VersionOf,
): JournalEntry[] {
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
    // A batch of reads (a bulk read of a valuation's chunks) writes nothing: its response, which can be
    // megabytes of documents, is not parsed.
    if (ops.every((op) => op.operationType === "Read")) return [];
    const results = JSON.parse(responseBody) as { statusCode?: number; resourceBody?: Record<string, unknown> }[];
    const entries: JournalEntry[] = [];
    results.forEach((result, i) => {
      const op = ops[i];
      if (op === undefined || result.statusCode === undefined || result.statusCode > 299) return;
      if (op.operationType === "Delete" && op.id !== undefined)
        entries.push({ op: "del", db, coll, id: op.id, pk: partitionValue(op.partitionKey) });
      else if (op.operationType !== "Read" && result.resourceBody !== undefined)
        entries.push({
          op: "put",
          db,
          coll,
          doc: strip(result.resourceBody),
          ...versionOf(db, coll, result.resourceBody),
        });
    });
    return entries;
  }
  const doc = JSON.parse(responseBody) as Record<string, unknown>;
  return typeof doc.id === "string" ? [{ op: "put", db, coll, doc: strip(doc), ...versionOf(db, coll, doc) }] : [];
}

/** Database and container creations are journalled from their responses too. */
function creationEntries(req: IncomingMessage, status: number, responseBody: string): JournalEntry[] {
  if (req.method !== "POST" || status !== 201) return [];
  const url = req.url ?? "";
  const body = JSON.parse(responseBody) as Record<string, unknown>;
  if (/^\/dbs\/?(\?.*)?$/.test(url)) return [{ op: "db", db: String(body.id) }];
  const m = /^\/dbs\/([^/?]+)\/colls\/?(\?.*)?$/.exec(url);
  if (m?.[1] !== undefined)
    return [{ op: "coll", db: decodeURIComponent(m[1]), coll: String(body.id), def: strip(body) }];
  return [];
}

function isQueryPlan(req: IncomingMessage): boolean {
  return req.method === "POST" && req.headers["x-ms-cosmos-is-query-plan-request"] !== undefined;
}

function isQuery(req: IncomingMessage): boolean {
  return (req.method === "POST" && req.headers["x-ms-documentdb-isquery"] !== undefined) || isQueryPlan(req);
}

function isWrite(req: IncomingMessage): boolean {
  if (req.method === "GET" || req.method === "HEAD" || isQuery(req)) return false;
  return (req.url ?? "").startsWith("/dbs");
}

/**
 * The stand-in's request handler with writes journalled into `store`, and queries that name a partition
 * scoped to it.
 */
export function journalling(
  standIn: RequestHandler,
  store: JournalStore,
  versionOf: VersionOf = () => ({}),
): RequestHandler {
  return (req, res) => {
    if (!isWrite(req)) {
      const partition = isQueryPlan(req)
        ? NO_DOCUMENTS
        : isQuery(req)
          ? partitionFromHeader(req.headers["x-ms-documentdb-partitionkey"])
          : undefined;
      inPartition(partition, () => standIn(req, res));
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
          store.append([
            ...creationEntries(req, res.statusCode, text),
            ...journalEntries(req, body, res.statusCode, text, versionOf),
          ]);
        } else if (req.method === "DELETE" && res.statusCode === 204) {
          store.append(journalEntries(req, body, 200, "{}", versionOf));
        }
        return end(chunk);
      }) as typeof res.end;
      standIn(replay as unknown as IncomingMessage, res);
    });
  };
}
