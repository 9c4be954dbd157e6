import { notFound } from "../../domain/errors";
import type { FeedWithPassword } from "../../domain/feed";
import { storedFeed, withPassword, type FeedsDeps } from "./stored-feeds";

/** A new SFTP password for a feed, shown only in this answer; the old one stops working at once. */
export class RotateFeedCredentials {
  constructor(private readonly deps: FeedsDeps) {}

  async execute(id: string): Promise<FeedWithPassword> {
    const current = await storedFeed(this.deps.repository, id);
    const issued = await this.deps.logins.rotatePassword(id, current.sftp);
    // Azure keeps its local users' passwords itself: the stored feed may not change, the audit trail still says so.
    const next = await this.deps.repository.update(
      id,
      (stored) => ({
        ...stored,
        sftp: { ...issued.login, publicKeys: stored.sftp.publicKeys },
        updatedAt: this.deps.clock.now().toISOString(),
      }),
      { action: "rotated", secrets: ["sftp.password"] },
    );
    if (next === undefined) throw notFound(`Feed '${id}'`);
    return withPassword(next, issued.password, this.deps.logins.endpoint);
  }
}
