import type { ContainerLocation } from "../domain/blob-source-container-url";
import type { ConnectionTest } from "../domain/connection-test";

/** An SFTP login as an export makes it, and the directory it writes to. */
export interface SftpProbeTarget {
  host: string;
  port: number;
  username: string;
  password?: string;
  privateKey?: string;
  /** The approved host key: any other is refused at the handshake. */
  hostKeyFingerprint?: string;
  /** The directory an export writes to (created if missing by a run; created and removed again by the test). */
  path: string;
}

/**
 * Tries an SFTP destination step by step, through the same SSRF guard and connection code as an export
 * run: resolve, connect, handshake (the host key seen), authenticate, write and remove a probe file.
 * Nothing is left behind.
 */
export interface SftpConnectionProbe {
  test(target: SftpProbeTarget): Promise<ConnectionTest>;
}

/**
 * Tries a customer's blob container with the service's identity (the emulator's key on the local
 * emulator), as a blob source or export reaches it: resolve the account, list under the prefix, and (an
 * export's destination) write and delete a probe blob. Nothing is left behind.
 */
export interface ContainerConnectionProbe {
  test(location: ContainerLocation, prefix: string | undefined, options: { write: boolean }): Promise<ConnectionTest>;
}
