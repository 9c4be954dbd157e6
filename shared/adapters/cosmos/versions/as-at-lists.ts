import type { Container, SqlParameter } from "@azure/cosmos";
import type { CursorPage, PageRequest } from "../../../domain/page-request";
import { assertPageDepth } from "../../../domain/pagination";
import { bulkRead, refKey } from "../bulk";
import { stripSystem } from "../cosmos-errors";
import { decodeCursor, encodeCursor } from "../paged-query";
import type { AsAtSource, StoredDoc } from "./as-at-reads";
import { recordedOf } from "./recorded";
import { versionIdOf, versionKeyOf, type VersionDoc } from "./version-docs";

/**
 * A list's query, as pagedQuery takes it: conditions on the current documents' fields (`c.<field>`),
 * which apply to the versions' stored documents (`c.doc.<field>`) as they are.
 */
export interface AsAtQuery {
  where: string[];
  parameters: SqlParameter[];
  /** A string field that orders the list uniquely (as pagedQuery's). */
  sortField: string;
  descending?: boolean;
  /** The current documents' partition the filter pins, if any. */
  partitionKey?: string;
}

/** A condition on a current document's fields, made a condition on a version's stored document. */
const onStoredDoc = (condition: string): string => condition.replace(/\bc\./g, "c.doc.");

/**
 * One page of a list as it read at `asAt`, by page number or cursor: the current documents recorded by
 * then, the closed versions current then, and the rare copies left open by an interrupted change
 * (resolved one by one), merged in the list's order. Totals count the same three sets.
 */
export async function asAtPagedQuery(
  src: AsAtSource,
  query: AsAtQuery,
  request: PageRequest,
  asAt: string,
): Promise<CursorPage<StoredDoc>> {
  if (request.page !== undefined) assertPageDepth(request.page, request.pageSize);
  const parts = partsOf(src, query, asAt);
  const [countCurrent, countClosed, open] = await Promise.all([
    count(src.container, parts.current, parts.parameters, parts.currentOptions),
    count(src.versions, [...parts.versions, "c.recordedTo > @asAt"], parts.parameters, parts.versionOptions),
    openVersionsAt(src, parts, asAt),
  ]);
  const totalItems = countCurrent + countClosed + open.length;
  const after = request.cursor === undefined ? undefined : decodeCursor(request.cursor);
  const skip = request.cursor === undefined ? (request.page - 1) * request.pageSize : 0;
  if (skip >= totalItems) return { items: [], totalItems, nextCursor: null };
  const merged = await firstOf(src, query, parts, open, skip + request.pageSize + 1, after);
  const items = merged.slice(skip, skip + request.pageSize);
  const more = merged.length > skip + request.pageSize;
  const lastKey = items.at(-1)?.[query.sortField];
  return { items, totalItems, nextCursor: more && typeof lastKey === "string" ? encodeCursor(lastKey) : null };
}

/** The first `top` records of the list as it read at `asAt` (no totals): e.g. the latest of something on or before a date. */
export async function asAtFirst(src: AsAtSource, query: AsAtQuery, top: number, asAt: string): Promise<StoredDoc[]> {
  const parts = partsOf(src, query, asAt);
  return firstOf(src, query, parts, await openVersionsAt(src, parts, asAt), top, undefined);
}

interface Parts {
  current: string[];
  versions: string[];
  parameters: SqlParameter[];
  currentOptions: { partitionKey?: string };
  versionOptions: { partitionKey?: string };
}

function partsOf(src: AsAtSource, query: AsAtQuery, asAt: string): Parts {
  const key = query.partitionKey === undefined ? undefined : versionKeyOf(src.kind, query.partitionKey);
  return {
    // A document from before versions existed has no `recorded`: known from the beginning.
    current: [...query.where, "(NOT IS_DEFINED(c.recorded) OR c.recorded.at <= @asAt)"],
    versions: [
      "c.kind = @kind",
      ...(key === undefined ? [] : ["c.key = @key"]),
      ...query.where.map(onStoredDoc),
      "c.recordedFrom <= @asAt",
    ],
    parameters: [
      ...query.parameters,
      { name: "@asAt", value: asAt },
      { name: "@kind", value: src.kind },
      ...(key === undefined ? [] : [{ name: "@key", value: key }]),
    ],
    currentOptions: query.partitionKey === undefined ? {} : { partitionKey: query.partitionKey },
    versionOptions: key === undefined ? {} : { partitionKey: key },
  };
}

async function count(
  container: Container,
  where: string[],
  parameters: SqlParameter[],
  options: { partitionKey?: string },
): Promise<number> {
  const query = `SELECT VALUE COUNT(1) FROM c WHERE ${where.join(" AND ")}`;
  const { resources } = await container.items
    .query<number>({ query, parameters: usedIn(query, parameters) }, options)
    .fetchAll();
  return resources[0] ?? 0;
}

/** The parameters a query names (the parts of a list share one set). */
const usedIn = (query: string, parameters: readonly SqlParameter[]): SqlParameter[] =>
  parameters.filter((p) => new RegExp(`${p.name}\\b`).test(query));

/** Merges the three sources' first `top` records (after the cursor) in the list's order. */
async function firstOf(
  src: AsAtSource,
  query: AsAtQuery,
  parts: Parts,
  open: readonly VersionDoc[],
  top: number,
  after: string | undefined,
): Promise<StoredDoc[]> {
  const direction = query.descending === true ? "DESC" : "ASC";
  const beyond = query.descending === true ? "<" : ">";
  const parameters = [...parts.parameters, { name: "@top", value: top }];
  if (after !== undefined) parameters.push({ name: "@after", value: after });
  const page = async <T>(container: Container, where: string[], field: string, options: object): Promise<T[]> => {
    const conditions = after === undefined ? where : [...where, `${field} ${beyond} @after`];
    const text = `SELECT TOP @top * FROM c WHERE ${conditions.join(" AND ")} ORDER BY ${field} ${direction}`;
    const { resources } = await container.items
      .query<T>({ query: text, parameters: usedIn(text, parameters) }, options)
      .fetchAll();
    return resources;
  };
  const [current, closed] = await Promise.all([
    page<StoredDoc>(src.container, parts.current, `c.${query.sortField}`, parts.currentOptions),
    page<VersionDoc>(
      src.versions,
      [...parts.versions, "c.recordedTo > @asAt"],
      `c.doc.${query.sortField}`,
      parts.versionOptions,
    ),
  ]);
  const sortValue = (doc: StoredDoc): string => {
    const value = doc[query.sortField];
    return typeof value === "string" ? value : "";
  };
  const all = [
    ...current.map((d) => stripSystem(d)),
    ...closed.map((v) => v.doc as StoredDoc),
    ...open
      .map((v) => v.doc as StoredDoc)
      .filter((d) => after === undefined || (query.descending === true ? sortValue(d) < after : sortValue(d) > after)),
  ];
  all.sort((a, b) => {
    const x = sortValue(a);
    const y = sortValue(b);
    const order = x < y ? -1 : x > y ? 1 : 0;
    return query.descending === true ? -order : order;
  });
  return all.slice(0, top);
}

/**
 * The copies an interrupted change left open (normally none) that were current at `asAt`: a copy of a
 * version still current is not (the current document is that version), and one that was replaced ended
 * where its next version began.
 */
async function openVersionsAt(src: AsAtSource, parts: Parts, asAt: string): Promise<VersionDoc[]> {
  const text = `SELECT * FROM c WHERE ${[...parts.versions, "c.recordedTo = null"].join(" AND ")}`;
  const { resources: open } = await src.versions.items
    .query<VersionDoc>({ query: text, parameters: usedIn(text, parts.parameters) }, parts.versionOptions)
    .fetchAll();
  if (open.length === 0) return [];
  const partitionOf = (v: VersionDoc): string => v.key.slice(src.kind.length + 1);
  const current = await bulkRead<StoredDoc>(
    src.container,
    open.map((v) => ({ id: v.recordId, partitionKey: partitionOf(v) })),
  );
  const nextRefs = open.flatMap((v) => {
    const now = current.get(refKey({ id: v.recordId, partitionKey: partitionOf(v) }));
    return now !== undefined && recordedOf(now).version > v.version + 1
      ? [{ id: versionIdOf(v.recordId, v.version + 1), partitionKey: v.key }]
      : [];
  });
  const next = await bulkRead<VersionDoc>(src.versions, nextRefs);
  return open.filter((v) => {
    const now = current.get(refKey({ id: v.recordId, partitionKey: partitionOf(v) }));
    if (now === undefined) return false;
    const recorded = recordedOf(now);
    if (recorded.version <= v.version) return false;
    const end =
      recorded.version === v.version + 1
        ? recorded.at
        : next.get(refKey({ id: versionIdOf(v.recordId, v.version + 1), partitionKey: v.key }))?.recordedFrom;
    return end !== undefined && end > asAt;
  });
}
