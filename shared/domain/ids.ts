import { z } from "zod";

// Cosmos DB refuses ids containing / \ ? # (and ids ending in a space), and `%` or control characters
// only arrive in a path by mistake. No id this service hands out contains any of them, so such an id
// is a malformed request, not a lookup: checking it here keeps it away from every store read.
const FORBIDDEN = /[/\\?#%\p{Cc}]/u;

/** Whether `v` can be an id of this service: what idParam accepts (the pipeline refuses unstorable text before). */
export const isWellFormedId = (v: string, max = 200): boolean =>
  v.length >= 1 && v.length <= max && !FORBIDDEN.test(v) && v.trim() === v;

/** The id in an item route's path (`/portfolios/{portfolioId}` and the like). */
export const idParam = (max = 200): z.ZodString =>
  z
    .string()
    .min(1)
    .max(max)
    .refine((v) => !FORBIDDEN.test(v) && v.trim() === v, {
      message: "not a valid id: ids contain no / \\ ? # % or control characters and no leading or trailing spaces",
    });
