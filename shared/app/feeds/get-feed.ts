import { toPublicFeed, type Feed } from "../../domain/feed";
import { storedFeed, type FeedsDeps } from "./stored-feeds";

/** One feed (its SFTP password is never returned). */
export class GetFeed {
  constructor(private readonly deps: FeedsDeps) {}

  async execute(id: string): Promise<Feed> {
    return toPublicFeed(await storedFeed(this.deps.repository, id), this.deps.logins.endpoint);
  }
}
