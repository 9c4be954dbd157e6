/**
 * Partition-scoped queries for the Cosmos stand-in. The stand-in runs every query over every document of
 * the container and ignores the partition key the SDK sends, so a query for one security's prices cost
 * what a million prices cost. Here each container's documents are indexed by partition key value, and a
 * query whose request names a partition (header x-ms-documentdb-partitionkey, sent when the SDK is given
 * `{ partitionKey }`) runs over that partition alone — which is also what Cosmos DB itself answers.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { startQuery } from "./array-contains";
import type { Doc, StandInDocuments, StandInItem } from "./stand-in-internals";

/** Documents in one container by partition: partition key → (rid → item), and rid → partition key. */
interface ContainerIndex {
  partitions: Map<string, Map<string, StandInItem>>;
  partitionOf: Map<string, string>;
}

const indexes = new WeakMap<StandInDocuments, ContainerIndex>();
const requestPartition = new AsyncLocalStorage<string>();

/** How many documents queries handed to the query engine: lets tests see the index used, without timing. */
export const queryScan = { documents: 0 };

/**
 * One string per partition key value. JSON keeps types apart (the number 1 and the string "1" are
 * different partitions in Cosmos DB, as they are here); undefined (no value) has its own key.
 */
export function partitionKeyOf(value: unknown): string {
  return value === undefined ? "undefined" : JSON.stringify(value);
}

/**
 * The partition a request names, from the SDK's header (`["value"]`); undefined when none is named or it
 * is not a single plain value (the query then runs over the whole container, as before).
 */
export function partitionFromHeader(header: string | string[] | undefined): string | undefined {
  if (typeof header !== "string") return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(header);
  } catch {
    return undefined;
  }
  if (!Array.isArray(parsed) || parsed.length !== 1) return undefined;
  const [value] = parsed as unknown[];
  const plain = value === null || ["string", "number", "boolean"].includes(typeof value);
  return plain ? partitionKeyOf(value) : undefined;
}

/**
 * A "partition" no document is in. The SDK asks for a query plan beside every query and uses it only
 * when the query itself is refused as needing one, which the stand-in never does; but the stand-in
 * answers a plan request by running the whole query over the whole container. Run over no documents,
 * the answer has the same shape (and no plan in it, as before) at no cost.
 */
export const NO_DOCUMENTS = "\u0000no documents";

/** Runs `handle` (a request to the stand-in) with queries scoped to `partition`, through its awaits. */
export function inPartition<T>(partition: string | undefined, handle: () => T): T {
  return partition === undefined ? handle() : requestPartition.run(partition, handle);
}

function indexOf(documents: StandInDocuments): ContainerIndex {
  let index = indexes.get(documents);
  if (index === undefined) {
    // Built from what is stored, in storage order, so it also covers documents stored before it existed.
    index = { partitions: new Map(), partitionOf: new Map() };
    indexes.set(documents, index);
    for (const [rid, item] of documents._data) {
      const doc = item.read();
      if (doc !== undefined) add(index, rid, partitionKeyOf(documents._getPartition(doc)), item);
    }
  }
  return index;
}

function remove(index: ContainerIndex, rid: string): void {
  const partition = index.partitionOf.get(rid);
  if (partition === undefined) return;
  index.partitionOf.delete(rid);
  const members = index.partitions.get(partition);
  members?.delete(rid);
  if (members?.size === 0) index.partitions.delete(partition);
}

function add(index: ContainerIndex, rid: string, partition: string, item: StandInItem): void {
  // A rid stored again moves to the end, as it does in the stand-in's own map (replace is delete + set).
  remove(index, rid);
  let members = index.partitions.get(partition);
  if (members === undefined) index.partitions.set(partition, (members = new Map<string, StandInItem>()));
  members.set(rid, item);
  index.partitionOf.set(rid, partition);
}

/** The documents of one partition, in the order the stand-in stores them. */
export function partitionItems(documents: StandInDocuments, partition: string): ReadonlyMap<string, StandInItem> {
  return indexOf(documents).partitions.get(partition) ?? new Map<string, StandInItem>();
}

/**
 * The documents a partition-scoped query names by id (`ARRAY_CONTAINS(@ids, c.id)` that every result
 * must meet), found by id as Cosmos DB's index finds them, instead of every document of the partition
 * (a look-up of 1,000 transactions in a portfolio of a million). Undefined when the query is not of
 * that shape: no OR, NOT, JOIN or conditional anywhere, so the WHERE clause is a conjunction and the
 * condition holds for every row it returns; the engine still evaluates the whole query over the view.
 */
export function namedById(
  documents: StandInDocuments,
  params: unknown,
  partition: string,
  items: ReadonlyMap<string, StandInItem>,
): Map<string, StandInItem> | undefined {
  const { query: sql, parameters } = (params ?? {}) as {
    query?: unknown;
    parameters?: { name?: unknown; value?: unknown }[];
  };
  if (
    partition === NO_DOCUMENTS ||
    typeof sql !== "string" ||
    !/\bFROM\s+c\b/i.test(sql) ||
    /\b(OR|NOT|JOIN|IIF)\b|\?/i.test(sql)
  )
    return undefined;
  const match = /\bWHERE\b[\s\S]*\bARRAY_CONTAINS\(\s*(@\w+)\s*,\s*c\.id\s*\)/i.exec(sql);
  const ids = match === null ? undefined : parameters?.find((p) => p.name === match[1])?.value;
  if (!Array.isArray(ids) || !ids.every((id) => typeof id === "string")) return undefined;
  const key: unknown = JSON.parse(partition);
  const found = new Map<string, StandInItem>();
  for (const id of ids) {
    const rid = documents._toRid("/id", id, key);
    const item = items.get(rid);
    if (item !== undefined) found.set(rid, item);
  }
  return found;
}

let installed = false;

/**
 * Wraps the stand-in's document store: every write keeps the index (create, replace, upsert, patch and
 * batch all end in `_set`; every removal in `delete`), and a query inside `inPartition` sees only that
 * partition's documents. Installed once per process.
 */
export function installPartitionIndex(Documents: new (...args: unknown[]) => object): void {
  if (installed) return;
  installed = true;
  const proto = Documents.prototype as StandInDocuments;
  const { _set: set, delete: del, query } = proto;

  proto._set = function (this: StandInDocuments, data: Doc): Doc {
    const stored = set.call(this, data);
    const rid = String(stored._rid);
    const item = this._data.get(rid);
    if (item !== undefined) add(indexOf(this), rid, partitionKeyOf(this._getPartition(stored)), item);
    return stored;
  };

  proto.delete = function (this: StandInDocuments, idOrRid: string, partition?: unknown): void {
    const rid = this._toRid("/id", idOrRid, partition);
    del.call(this, idOrRid, partition);
    if (!this._data.has(rid)) remove(indexOf(this), rid);
  };

  proto.query = function (this: StandInDocuments, params: unknown, options: unknown): unknown {
    startQuery();
    const partition = requestPartition.getStore();
    if (partition === undefined) {
      queryScan.documents += this._data.size;
      return query.call(this, params, options);
    }
    const all = partitionItems(this, partition);
    const items = namedById(this, params, partition, all) ?? all;
    queryScan.documents += items.size;
    // The stand-in's own query, unchanged, over a view of this container whose documents are the
    // partition's: same compiled query, parameters, ordering, paging and continuation tokens.
    const view = Object.create(this, { _data: { value: items } }) as StandInDocuments;
    return query.call(view, params, options);
  };
}
