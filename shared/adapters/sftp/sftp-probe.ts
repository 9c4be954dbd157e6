import { createHash, randomBytes } from "node:crypto";
import { posix } from "node:path";
import SftpClient from "ssh2-sftp-client";
import { ConnectionSteps, type ConnectionTest } from "../../domain/connection-test";
import { normalizeFingerprint } from "../../domain/export-destination";
import type { SftpConnectionProbe, SftpProbeTarget } from "../../ports/connection-tests";
import { HostRefusedError, type VettedAddress } from "../http/outbound-host-guard";
import { connectFirst, type HostAddresses } from "./sftp-connection";

/** How long the probe file's write and removal may take, after the login. */
const WRITE_SECONDS = 30;

/** The key's algorithm: the first string of its SSH wire encoding (`ssh-ed25519`, `rsa-sha2-512`, …). */
function keyTypeOf(key: Buffer): string | undefined {
  if (key.length < 4) return undefined;
  const length = key.readUInt32BE(0);
  return length > 0 && length < 64 && key.length >= 4 + length
    ? key.subarray(4, 4 + length).toString("ascii")
    : undefined;
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * The SFTP connection test (SftpConnectionProbe) on the code an export run uses: the SSRF guard's
 * vetted addresses, a TCP connection this adapter makes itself, ssh2 over that socket with the host
 * key checked, then a probe file `.ids-connection-test-<random>` written and removed in the directory
 * (and the directories created for it removed again).
 */
export class SftpProbe implements SftpConnectionProbe {
  constructor(
    private readonly hosts: HostAddresses,
    private readonly connectTimeoutSeconds: number,
  ) {}

  async test(target: SftpProbeTarget): Promise<ConnectionTest> {
    const steps = new ConnectionSteps(["resolve", "connect", "handshake", "authenticate", "write"]);
    const where = `${target.host}:${target.port}`;
    const deadline = Date.now() + this.connectTimeoutSeconds * 1000;

    let addresses: VettedAddress[];
    try {
      addresses = await this.hosts.addresses(target.host);
    } catch (error) {
      if (!(error instanceof HostRefusedError)) throw error;
      steps.failed("resolve", error.message);
      return steps.result();
    }
    steps.passed("resolve", `${target.host} is ${addresses.map((a) => a.address).join(", ")}`);

    const sock = await connectFirst(addresses, target.port, deadline);
    if (sock === undefined) {
      steps.failed(
        "connect",
        `no TCP connection to ${where} within ${this.connectTimeoutSeconds} s (refused, or no answer): check the host, the port and the server's firewall`,
      );
      return steps.result();
    }
    steps.passed("connect", `connected to ${sock.remoteAddress ?? target.host}:${target.port}`);

    const pinned =
      target.hostKeyFingerprint === undefined ? undefined : normalizeFingerprint(target.hostKeyFingerprint);
    let seen: { fingerprint: string; type?: string } | undefined;
    const client = new SftpClient("connection-test", {
      error: () => undefined,
      end: () => undefined,
      close: () => undefined,
    });
    try {
      try {
        await client.connect({
          sock,
          username: target.username,
          ...(target.password !== undefined ? { password: target.password } : {}),
          ...(target.privateKey !== undefined ? { privateKey: target.privateKey } : {}),
          readyTimeout: Math.max(1000, deadline - Date.now()),
          hostVerifier: (key: Buffer): boolean => {
            const type = keyTypeOf(key);
            seen = {
              fingerprint: createHash("sha256").update(key).digest("base64").replace(/=+$/, ""),
              ...(type !== undefined ? { type } : {}),
            };
            return pinned === undefined || seen.fingerprint === pinned;
          },
        });
      } catch (error) {
        sock.destroy();
        const key = seen;
        if (key === undefined) {
          steps.failed(
            "handshake",
            `no SSH handshake with ${where} (not an SSH server, or it closed the connection): check the port`,
          );
          return steps.result();
        }
        const shown = {
          hostKeyFingerprint: `SHA256:${key.fingerprint}`,
          ...(key.type !== undefined ? { hostKeyType: key.type } : {}),
        };
        if (pinned !== undefined && key.fingerprint !== pinned) {
          steps.failed(
            "handshake",
            `the server presented host key SHA256:${key.fingerprint}, not the approved SHA256:${pinned}: refused before logging in. If the server's key was changed on purpose, approve the new one`,
          );
          return steps.result(shown);
        }
        steps.passed("handshake", this.handshakeDetail(key, pinned));
        steps.failed(
          "authenticate",
          /authentication methods failed/i.test(messageOf(error))
            ? `${where} refused the login of user '${target.username}': check the ${target.privateKey !== undefined ? "private key" : "password"}`
            : `the login to ${where} did not complete within ${this.connectTimeoutSeconds} s`,
        );
        return steps.result(shown);
      }
      const key = seen;
      const shown =
        key === undefined
          ? {}
          : {
              hostKeyFingerprint: `SHA256:${key.fingerprint}`,
              ...(key.type !== undefined ? { hostKeyType: key.type } : {}),
            };
      steps.passed("handshake", key === undefined ? "SSH session opened" : this.handshakeDetail(key, pinned));
      steps.passed(
        "authenticate",
        `logged in as '${target.username}' with the ${target.privateKey !== undefined ? "private key" : "password"}`,
      );
      const write = await this.writeProbe(client, target.path, where);
      if ("problem" in write) steps.failed("write", write.problem);
      else steps.passed("write", write.detail);
      return steps.result(shown);
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  private handshakeDetail(key: { fingerprint: string; type?: string }, pinned: string | undefined): string {
    const what = `host key ${key.type !== undefined ? `${key.type} ` : ""}SHA256:${key.fingerprint}`;
    return pinned === undefined
      ? `${what}, not approved yet: approve it so that any other key is refused`
      : `${what}, the approved one`;
  }

  /** Writes and removes the probe file in `path`, creating (and afterwards removing) the directories it lacks. */
  private async writeProbe(
    client: SftpClient,
    path: string,
    where: string,
  ): Promise<{ detail: string } | { problem: string }> {
    const directory = path.replace(/\/+$/, "") || "/";
    const probe = posix.join(directory, `.ids-connection-test-${randomBytes(6).toString("hex")}`);
    const created: string[] = [];
    let written = false;
    const timeout = new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`no answer within ${WRITE_SECONDS} s`)), WRITE_SECONDS * 1000).unref(),
    );
    let doing = `checking ${directory}`;
    const work = async (): Promise<string> => {
      // The directories missing on the way, outermost first, so that they can be removed again innermost first.
      for (let d = directory; d !== "/" && d !== "." && d !== ""; d = posix.dirname(d)) {
        const kind = await client.exists(d);
        if (kind === "d") break;
        if (kind !== false) throw new Error(`${d} exists and is not a directory`);
        created.unshift(d);
      }
      for (const d of created) {
        doing = `creating ${d}`;
        await client.mkdir(d);
      }
      doing = `writing ${probe}`;
      await client.put(Buffer.from("connection test of the Investment Data Service; safe to delete\n"), probe);
      written = true;
      doing = `removing ${probe}`;
      await client.delete(probe);
      written = false;
      for (const d of [...created].reverse()) {
        doing = `removing ${d}`;
        await client.rmdir(d);
      }
      return created.length === 0
        ? `wrote and removed ${probe}`
        : `wrote and removed ${probe}; ${created[0]} did not exist (an export creates it): it was created for the test and removed again`;
    };
    try {
      return { detail: await Promise.race([work(), timeout]) };
    } catch (error) {
      // Best effort: leave nothing behind.
      if (written) await client.delete(probe, true).catch(() => undefined);
      for (const d of [...created].reverse()) await client.rmdir(d).catch(() => undefined);
      return { problem: `${doing} on ${where} failed: ${messageOf(error)}` };
    }
  }
}
