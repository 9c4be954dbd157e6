import { z } from "zod";
import { AppError } from "./errors";

export const MAX_PAGE_SIZE = 200;

/**
 * How deep page numbers reach: page × pageSize at most 10,000 items. A page number has to read
 * every item before its page, so deeper pages are refused; a cursor (`pagination.nextCursor`, on the
 * lists that have one) reads one page's worth however deep it goes.
 */
export const MAX_PAGE_DEPTH = 10_000;

export const pageDescription = `Page number, from 1 (default 1); page × pageSize may not exceed ${MAX_PAGE_DEPTH.toLocaleString("en-US")} (400 INVALID_REQUEST beyond)`;

/** Refuses a page number beyond MAX_PAGE_DEPTH, with a detail on `page`. */
export function assertPageDepth(page: number, pageSize: number): void {
  if (page * pageSize <= MAX_PAGE_DEPTH) return;
  throw new AppError("INVALID_REQUEST", `Page numbers reach ${MAX_PAGE_DEPTH.toLocaleString("en-US")} items deep`, {
    details: [
      {
        field: "page",
        message: `page × pageSize must be at most ${MAX_PAGE_DEPTH}; follow pagination.nextCursor with cursor to read further, or narrow the filters`,
      },
    ],
  });
}

/** `page` and `pageSize` query parameters shared by every list. */
export const pageQuery = z.object({
  page: z.coerce.number().int().min(1).default(1).meta({ description: pageDescription }),
  pageSize: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_PAGE_SIZE)
    .default(50)
    .meta({ description: `Items per page, 1 to ${MAX_PAGE_SIZE}` }),
});

export const paginationSchema = z
  .object({
    page: z.number().int(),
    pageSize: z.number().int(),
    totalItems: z.number().int(),
    totalPages: z.number().int(),
  })
  .meta({ id: "Pagination" });

export type Pagination = z.infer<typeof paginationSchema>;

export function paginationOf(page: number, pageSize: number, totalItems: number): Pagination {
  return { page, pageSize, totalItems, totalPages: Math.ceil(totalItems / pageSize) };
}
