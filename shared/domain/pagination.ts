import { z } from "zod";

export const MAX_PAGE_SIZE = 200;

/** `page` and `pageSize` query parameters shared by every list. */
export const pageQuery = z.object({
  page: z.coerce.number().int().min(1).default(1).meta({ description: "Page number, from 1" }),
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

export interface Page<T> {
  items: T[];
  totalItems: number;
}

export function paginationOf(page: number, pageSize: number, totalItems: number): Pagination {
  return { page, pageSize, totalItems, totalPages: Math.ceil(totalItems / pageSize) };
}
