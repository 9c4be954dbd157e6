/**
 * Cosmos DB's change feed (latest-version mode), which the stand-in lacks: emulated here, in the
 * stand-in, so that production code and the local host read it exactly as they read Cosmos DB's.
 *
 * Every write of a document gives it the next logical sequence number (`_lsn`) of its container. The
 * number is kept beside the document (Cosmos DB shows `_lsn` on change-feed items only, not on reads)
 * and journalled with it, so a restart keeps the order. A `GET …/docs` with `A-IM: Incremental feed`
 * answers as Cosmos DB does: the latest version of each document written after the continuation
 * (`If-None-Match`), in `_lsn` order, each with its `_lsn`; `etag` is the next continuation; 304 when
 * nothing is new. Deletes (and expired documents) never appear.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Doc, StandInAccount, StandInDocuments } from "./stand-in-internals";

interface FeedState {
  /** The last `_lsn` given out. */
  last: number;
  /** Each stored document's current `_lsn`, by `_rid`. */
  lsnOf: Map<string, number>;
  /** Every `_lsn` given out with its `_rid`, in order; an entry is stale once its document moved on or went. */
  log: { lsn: number; rid: string }[];
  sorted: boolean;
}

const states = new WeakMap<StandInDocuments, FeedState>();
/** During a restore: the `_lsn` and `_ts` a journalled or snapshotted document had (else a write gets the next). */
const restoring = new AsyncLocalStorage<RecordedVersion>();

/** What a journal or snapshot entry recorded of a write (nothing, for data from before the change feed). */
export interface RecordedVersion {
  lsn?: number | undefined;
  ts?: number | undefined;
}

function stateOf(documents: StandInDocuments): FeedState {
  let state = states.get(documents);
  if (state === undefined) {
    state = { last: 0, lsnOf: new Map(), log: [], sorted: true };
    states.set(documents, state);
  }
  return state;
}

/** Runs a restore step (`apply` of one journal or snapshot entry) with the version it recorded. */
export function withRecordedVersion<T>(version: RecordedVersion, apply: () => T): T {
  return restoring.run(version, apply);
}

/** The `_lsn` a stored document has now (for its journal entry). */
export function lsnOf(documents: StandInDocuments, rid: unknown): number | undefined {
  return typeof rid === "string" ? states.get(documents)?.lsnOf.get(rid) : undefined;
}

let installed = false;

/** Wraps the stand-in's document store: every stored version gets an `_lsn`; a removal forgets it. */
export function installChangeFeed(Documents: new (...args: unknown[]) => object): void {
  if (installed) return;
  installed = true;
  const proto = Documents.prototype as StandInDocuments;

  const { _set: set, delete: del } = proto;

  proto._set = function (this: StandInDocuments, data: Doc): Doc {
    const recorded = restoring.getStore();
    if (recorded?.ts !== undefined) data._ts = recorded.ts;
    const stored = set.call(this, data);
    const state = stateOf(this);
    const lsn = recorded?.lsn ?? state.last + 1;
    const rid = String(stored._rid);
    if (state.log.length > 0 && lsn < (state.log[state.log.length - 1]?.lsn ?? 0)) state.sorted = false;
    state.last = Math.max(state.last, lsn);
    state.lsnOf.set(rid, lsn);
    state.log.push({ lsn, rid });
    if (state.log.length > 2 * state.lsnOf.size + 10_000) compact(state);
    return stored;
  };

  proto.delete = function (this: StandInDocuments, idOrRid: string, partition?: unknown): void {
    const rid = this._toRid("/id", idOrRid, partition);
    del.call(this, idOrRid, partition);
    if (!this._data.has(rid)) states.get(this)?.lsnOf.delete(rid);
  };
}

/** Drops superseded and deleted entries from the log. */
function compact(state: FeedState): void {
  state.log = [...state.lsnOf].map(([rid, lsn]) => ({ lsn, rid })).sort((a, b) => a.lsn - b.lsn);
  state.sorted = true;
}

/** Cosmos DB ends a feed page at about 4 MB of documents, whatever the item count asked for. */
export const MAX_PAGE_BYTES = 4 * 1024 * 1024;

/**
 * The latest version of each document changed after `after`, in `_lsn` order: at most `max`, and no
 * more than MAX_PAGE_BYTES of them (at least one), each as its JSON text.
 */
export function readFeed(
  documents: StandInDocuments,
  after: number,
  max: number,
): { items: string[]; continuation: number } {
  const state = stateOf(documents);
  if (!state.sorted) compact(state);
  const log = state.log;
  let lo = 0;
  let hi = log.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((log[mid]?.lsn ?? 0) <= after) lo = mid + 1;
    else hi = mid;
  }
  const items: string[] = [];
  let bytes = 0;
  let continuation = after;
  for (let i = lo; i < log.length && items.length < max; i++) {
    const entry = log[i];
    if (entry === undefined || state.lsnOf.get(entry.rid) !== entry.lsn) continue;
    const doc = documents._data.get(entry.rid)?.read();
    if (doc === undefined) continue;
    const text = JSON.stringify({ ...doc, _lsn: entry.lsn });
    if (items.length > 0 && bytes + text.length > MAX_PAGE_BYTES) break;
    items.push(text);
    bytes += text.length;
    continuation = entry.lsn;
  }
  // Nothing new: the continuation stays where the reader is (or moves to the end when it asked for "now").
  return { items, continuation };
}

const FEED = /^\/dbs\/([^/?]+)\/colls\/([^/?]+)\/docs\/?(?:\?.*)?$/;

/** The continuation a reader sent: `"<lsn>"` as we gave it, `*` (from now), or none (from the beginning). */
function startAfter(header: string | string[] | undefined, state: FeedState): number {
  if (typeof header !== "string" || header === "") return 0;
  if (header === "*") return state.last;
  const lsn = Number(header.replace(/"/g, ""));
  return Number.isSafeInteger(lsn) && lsn >= 0 ? lsn : 0;
}

/** Answers change-feed reads (`A-IM: Incremental feed`) from `account`; other requests go to `next`. */
export function changeFeedHandler(
  account: () => StandInAccount,
  next: (req: IncomingMessage, res: ServerResponse) => void,
) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    const match = req.method === "GET" && typeof req.headers["a-im"] === "string" ? FEED.exec(req.url ?? "") : null;
    if (match === null) return next(req, res);
    const collection = account()
      .database(decodeURIComponent(match[1] ?? ""))
      .collection(decodeURIComponent(match[2] ?? ""));
    const definition = collection.read();
    if (definition === undefined) {
      res
        .writeHead(404, { "content-type": "application/json" })
        .end(JSON.stringify({ code: "NotFound", message: "Resource Not Found" }));
      return;
    }
    const state = stateOf(collection.documents);
    const after = startAfter(req.headers["if-none-match"], state);
    const requested = Number(req.headers["x-ms-max-item-count"]);
    const { items, continuation } = readFeed(
      collection.documents,
      after,
      Number.isInteger(requested) && requested > 0 ? requested : 100,
    );
    const etag = `"${continuation}"`;
    if (items.length === 0) {
      res.writeHead(304, { etag, "x-ms-item-count": "0" }).end();
      return;
    }
    const body = `{"_rid":${JSON.stringify(definition._rid)},"Documents":[${items.join(",")}],"_count":${items.length}}`;
    res.writeHead(200, { "content-type": "application/json", etag, "x-ms-item-count": String(items.length) }).end(body);
  };
}
