/** Reading the API's paged lists to the end, a page at a time, for the export data sets. */
import type { CursorPage, PageRequest } from "../../domain/page-request";

/** Records per page of the cursor-paged lists (the repositories take more than the API's 200). */
const PAGE_SIZE = 5000;

/** Every item of a cursor-paged list: the first page by number, the rest by cursor. */
export async function* cursorPages<T>(list: (request: PageRequest) => Promise<CursorPage<T>>): AsyncGenerator<T[]> {
  let page = await list({ page: 1, pageSize: PAGE_SIZE });
  for (;;) {
    if (page.items.length > 0) yield page.items;
    if (page.nextCursor === null) return;
    page = await list({ cursor: page.nextCursor, pageSize: PAGE_SIZE });
  }
}

/** The pages with only the items `keep` accepts. */
export async function* filterPages<T>(pages: AsyncIterable<T[]>, keep: (item: T) => boolean): AsyncGenerator<T[]> {
  for await (const page of pages) yield page.filter(keep);
}

export async function* flat<T>(pages: AsyncIterable<T[]>): AsyncGenerator<T> {
  for await (const page of pages) yield* page;
}
