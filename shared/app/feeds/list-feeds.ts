import type { Feed } from "../../domain/feed";
import type { CursorPage, PageRequest } from "../../domain/page-request";
import { feedsAsAnswered, type FeedsDeps } from "./stored-feeds";

/** A page of feeds, each with its last job (their SFTP passwords are never returned). */
export class ListFeeds {
  constructor(private readonly deps: FeedsDeps) {}

  async execute(request: PageRequest): Promise<CursorPage<Feed>> {
    const result = await this.deps.repository.list(request);
    return { ...result, items: await feedsAsAnswered(this.deps, result.items) };
  }
}
