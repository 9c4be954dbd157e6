import { z } from "zod";
import { AppError } from "./errors";
import { MAX_PAGE_SIZE, pageDescription } from "./pagination";

/** Either a page number or a cursor from a previous page's `pagination.nextCursor`. */
export type PageRequest =
  { page: number; pageSize: number; cursor?: undefined } | { cursor: string; pageSize: number; page?: undefined };

export interface CursorPage<T> {
  items: T[];
  totalItems: number;
  nextCursor: string | null;
}

export const cursorQuery = z.object({
  page: z.coerce.number().int().min(1).optional().meta({ description: pageDescription }),
  pageSize: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_PAGE_SIZE)
    .default(50)
    .meta({ description: `Items per page, 1 to ${MAX_PAGE_SIZE}` }),
  cursor: z.string().min(1).max(1000).optional().meta({
    description:
      "Continue a deep scan from pagination.nextCursor (instead of page); reads one page's worth however deep",
  }),
});

export const cursorPaginationSchema = z
  .object({
    page: z.number().int().nullable(),
    pageSize: z.number().int(),
    totalItems: z.number().int(),
    totalPages: z.number().int(),
    nextCursor: z.string().nullable(),
  })
  .meta({ id: "CursorPagination" });

export function pageRequestOf(query: {
  page?: number | undefined;
  pageSize: number;
  cursor?: string | undefined;
}): PageRequest {
  if (query.page !== undefined && query.cursor !== undefined) {
    throw new AppError("INVALID_REQUEST", "Pass either page or cursor, not both", {
      details: [{ field: "cursor", message: "not allowed together with page" }],
    });
  }
  return query.cursor !== undefined
    ? { cursor: query.cursor, pageSize: query.pageSize }
    : { page: query.page ?? 1, pageSize: query.pageSize };
}

export function cursorPaginationOf(
  request: PageRequest,
  result: CursorPage<unknown>,
): z.infer<typeof cursorPaginationSchema> {
  return {
    page: request.page ?? null,
    pageSize: request.pageSize,
    totalItems: result.totalItems,
    totalPages: Math.ceil(result.totalItems / request.pageSize),
    nextCursor: result.nextCursor,
  };
}
