import { toPublicFeed, type Feed } from "../../domain/feed";
import type { CursorPage, PageRequest } from "../../domain/page-request";
import type { FeedsDeps } from "./stored-feeds";

/** A page of feeds (their SFTP passwords are never returned). */
export class ListFeeds {
  constructor(private readonly deps: FeedsDeps) {}

  async execute(request: PageRequest): Promise<CursorPage<Feed>> {
    const result = await this.deps.repository.list(request);
    return { ...result, items: result.items.map((f) => toPublicFeed(f, this.deps.logins.endpoint)) };
  }
}
