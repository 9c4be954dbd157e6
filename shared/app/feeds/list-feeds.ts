import { AppError } from "../../domain/errors";
import { toPublicFeed, type Feed } from "../../domain/feed";
import type { CursorPage, PageRequest } from "../../domain/page-request";
import type { FeedsDeps } from "./stored-feeds";

/**
 * A page of feeds (their SFTP passwords are never returned). Feeds are few and page by number: the
 * list issues no cursor (`nextCursor` is always null), so a cursor given to it is not one of its own.
 */
export class ListFeeds {
  constructor(private readonly deps: FeedsDeps) {}

  async execute(request: PageRequest): Promise<CursorPage<Feed>> {
    if (request.page === undefined) {
      throw new AppError("INVALID_REQUEST", "The cursor is not valid", { details: [{ field: "cursor", message: "not a cursor from this list" }] });
    }
    const result = await this.deps.repository.list(request.page, request.pageSize);
    return { items: result.items.map((f) => toPublicFeed(f, this.deps.logins.endpoint)), totalItems: result.totalItems, nextCursor: null };
  }
}
