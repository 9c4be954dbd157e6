import type { Container, SqlParameter } from "@azure/cosmos";
import { AppError } from "../../domain/errors";
import type { CursorPage, PageRequest } from "../../domain/page-request";
import { assertPageDepth } from "../../domain/pagination";
import { stripSystem } from "./cosmos-errors";

export interface PagedQuery {
  /** Conditions joined with AND; parameters named in them. */
  where: string[];
  parameters: SqlParameter[];
  /** A single string field that orders the list uniquely (Cosmos needs a composite index for more). */
  sortField: string;
  descending?: boolean;
  /** The partition the filter pins, if any: the query then reads that partition alone. */
  partitionKey?: string;
}

/** `c.<field> = @<field>` for every filter that is set. */
export function equalityFilters(filters: Record<string, string | undefined>): {
  where: string[];
  parameters: SqlParameter[];
} {
  const where: string[] = [];
  const parameters: SqlParameter[] = [];
  for (const [field, value] of Object.entries(filters)) {
    if (value === undefined) continue;
    where.push(`c.${field} = @${field}`);
    parameters.push({ name: `@${field}`, value });
  }
  return { where, parameters };
}

export const encodeCursor = (value: string): string =>
  Buffer.from(JSON.stringify({ after: value })).toString("base64url");

export function decodeCursor(cursor: string): string {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as { after?: unknown };
    if (typeof parsed.after === "string") return parsed.after;
  } catch {
    // fall through
  }
  throw new AppError("INVALID_REQUEST", "The cursor is not valid", {
    details: [{ field: "cursor", message: "not a cursor from this list" }],
  });
}

/**
 * One page of a list, by page number or by cursor (keyset on `sortField`), using only TOP and ORDER BY
 * on one field: the query subset both Cosmos DB and the local stand-in serve.
 */
export async function pagedQuery<T extends object>(
  container: Container,
  query: PagedQuery,
  request: PageRequest,
): Promise<CursorPage<T>> {
  // Without OFFSET (the stand-in has none) a page number reads every item before it: bound that.
  if (request.page !== undefined) assertPageDepth(request.page, request.pageSize);
  const where = query.where.length > 0 ? query.where.join(" AND ") : "true";
  const options = query.partitionKey === undefined ? {} : { partitionKey: query.partitionKey };
  const { resources: counts } = await container.items
    .query<number>({ query: `SELECT VALUE COUNT(1) FROM c WHERE ${where}`, parameters: query.parameters }, options)
    .fetchAll();
  const totalItems = counts[0] ?? 0;
  const field = `c.${query.sortField}`;
  const direction = query.descending === true ? "DESC" : "ASC";
  const conditions = [where];
  const parameters = [...query.parameters];
  let skip = 0;
  if (request.cursor !== undefined) {
    conditions.push(`${field} ${query.descending === true ? "<" : ">"} @after`);
    parameters.push({ name: "@after", value: decodeCursor(request.cursor) });
  } else {
    skip = (request.page - 1) * request.pageSize;
    if (skip >= totalItems) return { items: [], totalItems, nextCursor: null };
  }
  parameters.push({ name: "@top", value: skip + request.pageSize + 1 });
  const { resources } = await container.items
    .query<T>(
      {
        query: `SELECT TOP @top * FROM c WHERE ${conditions.join(" AND ")} ORDER BY ${field} ${direction}`,
        parameters,
      },
      options,
    )
    .fetchAll();
  const page = resources.slice(skip, skip + request.pageSize).map((doc) => stripSystem(doc));
  const more = resources.length > skip + request.pageSize;
  const last = page.at(-1) as Record<string, unknown> | undefined;
  const lastKey = last?.[query.sortField];
  return { items: page, totalItems, nextCursor: more && typeof lastKey === "string" ? encodeCursor(lastKey) : null };
}
