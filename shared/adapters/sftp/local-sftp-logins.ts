import { randomBytes } from "node:crypto";
import type { SftpEndpoint } from "../../domain/feed";
import { hashSecret } from "../../domain/secret-hash";
import type { IssuedSftpLogin, SftpLogins, StoredSftpLogin } from "../../ports/sftp-logins";

/** A generated SFTP password: 32 random bytes, base64url (256 bits). */
const newPassword = (): string => randomBytes(32).toString("base64url");

/** The login of a feed: derived from its id, so unique as the id is. */
export const localUsernameOf = (feedId: string): string => `feed-${feedId.replace(/^fd_/, "")}`;

/**
 * Logins the local SFTP drop (`local/sftp-server.ts`) checks: the password is generated here and
 * stored only as a scrypt hash with the feed; keys are stored with the feed too. Nothing lives
 * outside the feed, so deleting the feed deletes the login.
 */
export class LocalSftpLogins implements SftpLogins {
  constructor(readonly endpoint: SftpEndpoint) {}

  async create(feedId: string): Promise<IssuedSftpLogin> {
    const password = newPassword();
    return {
      login: { username: localUsernameOf(feedId), publicKeys: [], passwordHash: await hashSecret(password) },
      password,
    };
  }

  async rotatePassword(_feedId: string, current: StoredSftpLogin): Promise<IssuedSftpLogin> {
    const password = newPassword();
    return { login: { ...current, passwordHash: await hashSecret(password) }, password };
  }

  async setPublicKeys(_feedId: string, current: StoredSftpLogin, publicKeys: string[]): Promise<StoredSftpLogin> {
    return { ...current, publicKeys };
  }

  async delete(): Promise<void> {
    // The login is part of the feed's record, which the caller deletes.
  }
}
