import { notFound } from "../../domain/errors";
import { storedFeed, type FeedsDeps } from "./stored-feeds";

/** Deletes a feed and its SFTP login. */
export class DeleteFeed {
  constructor(private readonly deps: FeedsDeps) {}

  async execute(id: string): Promise<void> {
    const stored = await storedFeed(this.deps.repository, id);
    // The login goes first: a feed whose login could not be removed can be deleted again.
    await this.deps.logins.delete(id, stored.sftp);
    if (!(await this.deps.repository.delete(id))) throw notFound(`Feed '${id}'`);
  }
}
