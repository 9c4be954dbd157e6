import type { Feed } from "../../domain/feed";
import { feedAsAnswered, storedFeed, type FeedsDeps } from "./stored-feeds";

/** One feed with its last job (its SFTP password is never returned). */
export class GetFeed {
  constructor(private readonly deps: FeedsDeps) {}

  async execute(id: string): Promise<Feed> {
    return feedAsAnswered(this.deps, await storedFeed(this.deps.repository, id));
  }
}
