import { services } from "../composition";
import { cursorPaginationOf, pageRequestOf, type CursorPage, type PageRequest } from "../domain/page-request";
import { resolveAsAt } from "../domain/versions";
import { checkRange } from "./date-range";

/** The instant an `asAt` query parameter names, checked against the service's clock (400 naming asAt in the future). */
export const asAtOf = (raw: string | undefined): string | undefined => resolveAsAt(raw, services().clock.now());

/** The `X-As-At` header of an answer given as at an instant. */
export const asAtHeaders = (asAt: string | undefined): Record<string, string> =>
  asAt === undefined ? {} : { "X-As-At": asAt };

/** The header's documentation, for the responses of the reads that take `asAt`. */
export const asAtResponseHeader = {
  "X-As-At": "When asAt was given: the instant the answer is as at (UTC, milliseconds)",
};

/** The parts of a paged list's query that every list reads the same way. */
interface ListQuery {
  page?: number | undefined;
  pageSize: number;
  cursor?: string | undefined;
  asAt?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
}

/**
 * A dated list's query taken apart: the page asked for, the instant it is read as at, and the filters
 * given (the others left out); `from` after `to` is a 400.
 */
export function datedListQuery<Q extends ListQuery>(
  query: Q,
): {
  request: PageRequest;
  asAt: string | undefined;
  filter: Partial<Omit<Q, "page" | "pageSize" | "cursor" | "asAt">>;
} {
  const { page, pageSize, cursor, asAt, ...filter } = query;
  checkRange(filter.from, filter.to);
  return {
    request: pageRequestOf({ page, pageSize, cursor }),
    asAt: asAtOf(asAt),
    filter: Object.fromEntries(Object.entries(filter).filter(([, v]) => v !== undefined)) as Partial<
      Omit<Q, "page" | "pageSize" | "cursor" | "asAt">
    >,
  };
}

/** A page of a list as the API answers it: the items, their pagination, and X-As-At when read as at an instant. */
export function listAnswer<T>(
  request: PageRequest,
  result: CursorPage<T>,
  asAt: string | undefined,
): {
  status: 200;
  body: { data: T[]; pagination: ReturnType<typeof cursorPaginationOf> };
  headers: Record<string, string>;
} {
  return {
    status: 200,
    body: { data: result.items, pagination: cursorPaginationOf(request, result) },
    headers: asAtHeaders(asAt),
  };
}
