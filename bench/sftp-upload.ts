/**
 * Measuring the local runtime's memory while a large file comes in over SFTP: the file is generated
 * as it is sent (never held by the sender), and the runtime's resident set size is sampled meanwhile.
 * Used by bench/sftp-drop-memory.ts and test/sftp-memory.test.ts.
 */
import { readFileSync } from "node:fs";
import { Client, type SFTPWrapper } from "ssh2";
import { isinFor } from "./fixtures";

/** The resident set size of a process, in bytes (Linux /proc). */
export function rssOf(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m === null ? 0 : Number(m[1]) * 1024;
}

/** Samples a process's RSS every `everyMs` until stopped; answers the peak. */
export function sampleRss(pid: number, everyMs = 50): { stop(): number; peak(): number } {
  let peak = rssOf(pid);
  const timer = setInterval(() => {
    try {
      peak = Math.max(peak, rssOf(pid));
    } catch {
      // The process has gone.
    }
  }, everyMs);
  return {
    peak: () => peak,
    stop: () => {
      clearInterval(timer);
      return peak;
    },
  };
}

/**
 * About `bytes` of a positions CSV (header, then rows; the last row whole), made chunk by chunk. 31 KB
 * chunks: ssh2 splits a larger write into packets sent one after another, which pipelined writes
 * would interleave.
 */
export function* csvChunks(bytes: number, chunkBytes = 31 * 1024): Generator<Buffer> {
  let sent = 0;
  let row = 0;
  let pending = "Depot;ISIN;Stichtag;Nominal/Stück;Währung\n";
  while (sent < bytes) {
    while (pending.length < chunkBytes)
      pending += `DEPOT-${row % 97};${isinFor(row % 5000)};24.11.2026;${(row++ * 7) % 100000},00;EUR\n`;
    // The last chunk ends where a row does.
    const size = bytes - sent > chunkBytes ? chunkBytes : pending.indexOf("\n", Math.max(0, bytes - sent - 1)) + 1;
    const chunk = Buffer.from(pending.slice(0, size), "latin1");
    pending = pending.slice(size);
    sent += chunk.length;
    yield chunk;
  }
}

export interface SftpLogin {
  host: string;
  port: number;
  username: string;
  password: string;
}

function session(login: SftpLogin): Promise<{ conn: Client; sftp: SFTPWrapper }> {
  return new Promise((resolve, reject) => {
    const conn = new Client();
    conn.on("error", reject);
    conn.on("ready", () => conn.sftp((error, sftp) => (error ? reject(error) : resolve({ conn, sftp }))));
    conn.connect({
      host: login.host,
      port: login.port,
      username: login.username,
      password: login.password,
      readyTimeout: 20_000,
    });
  });
}

/**
 * Uploads `bytes` of generated CSV as `name`, with `inFlight` writes outstanding at most (OpenSSH keeps
 * 64; Infinity sends without ever waiting for an answer, as a hostile client may). Resolves with the
 * bytes sent, or rejects with the server's refusal.
 */
export async function uploadGenerated(login: SftpLogin, name: string, bytes: number, inFlight = 32): Promise<number> {
  const { conn, sftp } = await session(login);
  try {
    const handle = await new Promise<Buffer>((resolve, reject) =>
      sftp.open(name, "w", (e, h) => (e ? reject(e) : resolve(h))),
    );
    let position = 0;
    let failure: Error | undefined;
    const waiting = new Set<Promise<void>>();
    for (const chunk of csvChunks(bytes)) {
      if (failure !== undefined) break;
      const at = position;
      position += chunk.length;
      const write = new Promise<void>((resolve) =>
        sftp.write(handle, chunk, 0, chunk.length, at, (e) => {
          if (e) failure ??= e;
          resolve();
        }),
      );
      waiting.add(write);
      void write.then(() => waiting.delete(write));
      if (waiting.size >= inFlight) await Promise.race(waiting);
    }
    await Promise.all(waiting);
    await new Promise<void>((resolve, reject) => sftp.close(handle, (e) => (e ? reject(e) : resolve())));
    if (failure !== undefined) throw failure;
    return position;
  } finally {
    conn.end();
  }
}
