import { createHash } from "node:crypto";
import { Socket } from "node:net";
import type SftpClient from "ssh2-sftp-client";
import { normalizeFingerprint } from "../../domain/export-destination";
import { HostRefusedError, type VettedAddress } from "../http/outbound-host-guard";

/** Why an SFTP upload failed, in words a customer can act on; never a secret. */
export class SftpDestinationError extends Error {
  override readonly name = "SftpDestinationError";
}

/** The SSRF guard's connection side: the vetted addresses of a host (see OutboundHostGuard). */
export interface HostAddresses {
  addresses(host: string): Promise<VettedAddress[]>;
}

export interface SftpLogin {
  host: string;
  port: number;
  username: string;
  password?: string;
  privateKey?: string;
  /** When set, a server presenting any other host key is refused before logging in. */
  hostKeyFingerprint?: string;
  /** Seconds to reach the server and finish the SSH handshake and login. */
  connectTimeoutSeconds: number;
}

/**
 * Logs `client` in to the server of `login` through the SSRF guard: the host is resolved once, every
 * address vetted, and the TCP connection is made to a vetted address by this function (ssh2 gets the
 * connected socket, so it never resolves the name itself). Host-key pinning works as before: SSH
 * checks the key, not the name. Failures before the SSH login are one message whatever happened
 * (refused, reset, silent, not an SSH server), so a run's error is no probe of what listens where.
 */
export async function openSftp(client: SftpClient, login: SftpLogin, hosts: HostAddresses): Promise<void> {
  const where = `${login.host}:${login.port}`;
  const unreachable = new SftpDestinationError(
    `could not open an SSH session with ${where} within ${login.connectTimeoutSeconds} s (no answer, the connection refused or closed, or not an SSH server): check the host, the port and the server's firewall`,
  );
  const deadline = Date.now() + login.connectTimeoutSeconds * 1000;
  let addresses: VettedAddress[];
  try {
    addresses = await hosts.addresses(login.host);
  } catch (error) {
    if (error instanceof HostRefusedError) throw new SftpDestinationError(error.message);
    throw error;
  }
  const sock = await connectFirst(addresses, login.port, deadline);
  if (sock === undefined) throw unreachable;
  const pinned = login.hostKeyFingerprint === undefined ? undefined : normalizeFingerprint(login.hostKeyFingerprint);
  let hostKeyRefused = false;
  try {
    await client.connect({
      sock,
      username: login.username,
      ...(login.password !== undefined ? { password: login.password } : {}),
      ...(login.privateKey !== undefined ? { privateKey: login.privateKey } : {}),
      readyTimeout: Math.max(1, deadline - Date.now()),
      ...(pinned !== undefined
        ? {
            hostVerifier: (key: Buffer): boolean => {
              const seen = createHash("sha256").update(key).digest("base64").replace(/=+$/, "");
              hostKeyRefused = seen !== pinned;
              return !hostKeyRefused;
            },
          }
        : {}),
    });
  } catch (error) {
    sock.destroy();
    if (hostKeyRefused)
      throw new SftpDestinationError(
        `the host key of ${where} does not match hostKeyFingerprint; refused before logging in`,
      );
    if (/authentication methods failed/i.test(error instanceof Error ? error.message : "")) {
      throw new SftpDestinationError(
        `${where} refused the login of user '${login.username}': check the ${login.privateKey !== undefined ? "private key" : "password"}`,
      );
    }
    throw unreachable;
  }
}

/** A TCP connection to the first of `addresses` that answers before the deadline; undefined when none does. */
export async function connectFirst(
  addresses: readonly VettedAddress[],
  port: number,
  deadline: number,
): Promise<Socket | undefined> {
  for (const { address, family } of addresses) {
    const left = deadline - Date.now();
    if (left <= 0) return undefined;
    const sock = await new Promise<Socket | undefined>((resolve) => {
      const socket = new Socket();
      const timer = setTimeout(() => {
        socket.destroy();
        resolve(undefined);
      }, left);
      socket.once("connect", () => {
        clearTimeout(timer);
        // ssh2 listens from its connect on; until then an error must not go unheard (it would end the process).
        socket.on("error", () => undefined);
        resolve(socket);
      });
      socket.once("error", () => {
        clearTimeout(timer);
        socket.destroy();
        resolve(undefined);
      });
      socket.connect({ host: address, port, family });
    });
    if (sock !== undefined) return sock;
  }
  return undefined;
}
