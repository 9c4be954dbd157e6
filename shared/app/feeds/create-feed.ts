import { randomBytes } from "node:crypto";
import type { FeedCreate, FeedWithPassword, StoredFeed } from "../../domain/feed";
import { requireRecordPath, withPassword, type FeedsDeps } from "./stored-feeds";

/** Creates a feed with its SFTP login; the generated password is in this answer only. */
export class CreateFeed {
  constructor(private readonly deps: FeedsDeps) {}

  async execute(input: FeedCreate): Promise<FeedWithPassword> {
    requireRecordPath(input);
    const id = `fd_${randomBytes(9).toString("hex")}`;
    const issued = await this.deps.logins.create(id);
    const now = this.deps.clock.now().toISOString();
    const stored: StoredFeed = {
      id,
      name: input.name,
      provider: input.provider,
      dataType: input.dataType,
      format: input.format,
      filePattern: input.filePattern,
      options: input.options,
      mapping: input.mapping,
      validation: input.validation,
      status: input.status,
      sftp: issued.login,
      createdAt: now,
      updatedAt: now,
    };
    try {
      await this.deps.repository.create(stored);
    } catch (error) {
      // No login without its feed: a login nobody can see or delete would stay open.
      await this.deps.logins.delete(id, issued.login).catch(() => undefined);
      throw error;
    }
    return withPassword(stored, issued.password, this.deps.logins.endpoint);
  }
}
