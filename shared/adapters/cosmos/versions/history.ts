import type { SqlParameter } from "@azure/cosmos";
import type { CursorPage, PageRequest } from "../../../domain/page-request";
import { assertPageDepth } from "../../../domain/pagination";
import { decodeCursor, encodeCursor } from "../paged-query";
import type { AsAtSource, StoredDoc } from "./as-at-reads";
import type { HistoryPage } from "../../../ports/investment-repositories";
import { recordedOf, toRecordVersion } from "./recorded";
import { seqOf, versionKeyOf, type VersionDoc } from "./version-docs";

/** A record whose history is asked for: its current document and where it lives. */
export interface HistoryRecord {
  current: StoredDoc;
  recordId: string;
  partitionKey: string;
}

/**
 * The versions of one or more records of one partition (one price's sources), newest first: each
 * record's current document, then its closed versions (those below the current version: a copy of the
 * current version that an interrupted change left behind is that same version). Pages by number or by
 * cursor (the `seq` of the last entry); totals count every version.
 */
export async function historyPage(
  src: AsAtSource,
  records: readonly HistoryRecord[],
  request: PageRequest,
): Promise<CursorPage<StoredDoc>> {
  if (request.page !== undefined) assertPageDepth(request.page, request.pageSize);
  const first = records[0];
  if (first === undefined) return { items: [], totalItems: 0, nextCursor: null };
  const key = versionKeyOf(src.kind, first.partitionKey);
  const parameters: SqlParameter[] = [{ name: "@key", value: key }];
  const ofRecords = records.map((r, i) => {
    parameters.push({ name: `@r${i}`, value: r.recordId }, { name: `@v${i}`, value: recordedOf(r.current).version });
    return `(c.recordId = @r${i} AND c.version < @v${i})`;
  });
  const where = ["c.key = @key", `(${ofRecords.join(" OR ")})`];
  const { resources: counts } = await src.versions.items
    .query<number>(
      { query: `SELECT VALUE COUNT(1) FROM c WHERE ${where.join(" AND ")}`, parameters },
      { partitionKey: key },
    )
    .fetchAll();
  const totalItems = (counts[0] ?? 0) + records.length;
  const after = request.cursor === undefined ? undefined : decodeCursor(request.cursor);
  const skip = request.cursor === undefined ? (request.page - 1) * request.pageSize : 0;
  if (skip >= totalItems) return { items: [], totalItems, nextCursor: null };
  const top = skip + request.pageSize + 1;
  const conditions = after === undefined ? where : [...where, "c.seq < @after"];
  const { resources: versions } = await src.versions.items
    .query<VersionDoc>(
      {
        query: `SELECT TOP @top * FROM c WHERE ${conditions.join(" AND ")} ORDER BY c.seq DESC`,
        parameters: [
          ...parameters,
          { name: "@top", value: top },
          ...(after === undefined ? [] : [{ name: "@after", value: after }]),
        ],
      },
      { partitionKey: key },
    )
    .fetchAll();
  const entries = [
    ...records.map((r) => {
      const recorded = recordedOf(r.current);
      return { seq: seqOf(recorded.at, r.recordId, recorded.version), doc: r.current };
    }),
    ...versions.map((v) => ({ seq: v.seq, doc: v.doc })),
  ]
    .filter((e) => after === undefined || e.seq < after)
    .sort((a, b) => (a.seq < b.seq ? 1 : a.seq > b.seq ? -1 : 0))
    .slice(0, top);
  const page = entries.slice(skip, skip + request.pageSize);
  const more = entries.length > skip + request.pageSize;
  const last = page.at(-1);
  return {
    items: page.map((e) => e.doc),
    totalItems,
    nextCursor: more && last !== undefined ? encodeCursor(last.seq) : null,
  };
}

/** historyPage with each entry as the API lists it: its version's metadata and the record `toRecord` makes of it. */
export async function historyEntries<R>(
  src: AsAtSource,
  records: readonly HistoryRecord[],
  request: PageRequest,
  toRecord: (doc: StoredDoc) => R,
): Promise<HistoryPage<R>> {
  const page = await historyPage(src, records, request);
  return {
    ...page,
    items: page.items.map((doc) => ({ ...toRecordVersion(recordedOf(doc)), record: toRecord(doc) })),
  };
}
