/** Reading the API's paged lists to the end, a page at a time, for the export data sets. */
import { AppError } from "../../domain/errors";
import type { CursorPage, PageRequest } from "../../domain/page-request";
import { MAX_PAGE_DEPTH } from "../../domain/pagination";

/** Records per page of the cursor-paged lists (the repositories take more than the API's 200). */
const PAGE_SIZE = 5000;
/** Page numbers reach MAX_PAGE_DEPTH items: portfolio and security lists are read in pages of this. */
const NUMBERED_PAGE_SIZE = 200;

/** Every item of a cursor-paged list: the first page by number, the rest by cursor. */
export async function* cursorPages<T>(list: (request: PageRequest) => Promise<CursorPage<T>>): AsyncGenerator<T[]> {
  let page = await list({ page: 1, pageSize: PAGE_SIZE });
  for (;;) {
    if (page.items.length > 0) yield page.items;
    if (page.nextCursor === null) return;
    page = await list({ cursor: page.nextCursor, pageSize: PAGE_SIZE });
  }
}

/** Every item of a list paged by number, refusing a list deeper than page numbers reach. */
export async function* numberedPages<T>(what: string, list: (page: number, pageSize: number) => Promise<{ items: T[]; totalItems: number }>): AsyncGenerator<T[]> {
  for (let page = 1; ; page++) {
    const result = await list(page, NUMBERED_PAGE_SIZE);
    if (result.totalItems > MAX_PAGE_DEPTH) {
      throw new AppError("VALIDATION_ERROR", `an export reads at most ${MAX_PAGE_DEPTH.toLocaleString("en-US")} ${what}; there are ${result.totalItems.toLocaleString("en-US")}`, {
        details: [{ field: "filters", message: `narrow the ${what} with filters` }],
      });
    }
    if (result.items.length > 0) yield result.items;
    if (page * NUMBERED_PAGE_SIZE >= result.totalItems || result.items.length === 0) return;
  }
}

export async function* flat<T>(pages: AsyncIterable<T[]>): AsyncGenerator<T> {
  for await (const page of pages) yield* page;
}
