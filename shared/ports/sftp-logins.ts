import type { SftpEndpoint } from "../domain/feed";

export type { SftpEndpoint };

/** What a feed keeps of its SFTP login. */
export interface StoredSftpLogin {
  /** The login as the provider types it (locally `feed-<hex>`, in Azure `<account>.feed<hex>`). */
  username: string;
  /** OpenSSH public keys that may log in instead of the password. */
  publicKeys: string[];
  /** Only when the service checks the password itself (the local SFTP drop); Azure keeps its own. */
  passwordHash?: string;
}

/** A login with its password: the password is shown to the caller once and kept nowhere in clear. */
export interface IssuedSftpLogin {
  login: StoredSftpLogin;
  password: string;
}

/**
 * The SFTP logins of feeds, one per feed, whose home is the feed's inbox `inbound/<feedId>`. Locally
 * the service's own SFTP server checks them; in Azure they are the storage account's local users.
 */
export interface SftpLogins {
  readonly endpoint: SftpEndpoint;
  /** Creates the login of a new feed, with a generated password. */
  create(feedId: string): Promise<IssuedSftpLogin>;
  /** A new password; the old one stops working. */
  rotatePassword(feedId: string, current: StoredSftpLogin): Promise<IssuedSftpLogin>;
  /** Replaces the login's public keys (OpenSSH lines, already validated). */
  setPublicKeys(feedId: string, current: StoredSftpLogin, publicKeys: string[]): Promise<StoredSftpLogin>;
  /** Removes the login; nothing when it is gone already. */
  delete(feedId: string, current: StoredSftpLogin): Promise<void>;
}
