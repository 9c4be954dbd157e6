/**
 * Starting the local runtime as a child process on free ports: what the tests and the benchmarks do
 * to get a service of their own, exactly as `npm start` runs it.
 */
import { fork, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { randomInt } from "node:crypto";
import { dirname, join } from "node:path";

/** The folder of package.json: this file runs compiled (dist/local) and, in tests, from source (local). */
export const projectRoot = ((): string => {
  let dir = __dirname;
  while (!existsSync(join(dir, "package.json")) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
})();

/**
 * The range the system hands out ports from for outgoing connections (Linux; the usual range
 * elsewhere). A port picked from it can be taken by any connection the machine opens before the
 * component listens on it, which on a busy machine (the test suite) happens: so free ports come from
 * below it.
 */
function ephemeralRange(): { low: number; high: number } {
  try {
    const [low, high] = readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/).map(Number);
    if (low !== undefined && high !== undefined && Number.isInteger(low) && Number.isInteger(high))
      return { low, high };
  } catch {
    // not Linux
  }
  return { low: 32768, high: 65535 };
}

function listensOn(port: number): Promise<number | undefined> {
  return new Promise((resolvePort) => {
    const server = createServer();
    server.once("error", () => resolvePort(undefined));
    server.listen({ port, host: "127.0.0.1", exclusive: true }, () => {
      const address = server.address();
      server.close(() => resolvePort(typeof address === "object" && address !== null ? address.port : undefined));
    });
  });
}

/** Where ports handed out are reserved, one file each, for every process on the machine. */
const RESERVATIONS = join(tmpdir(), "ids-port-reservations");
/** Long enough for a component to start listening on its port; an older reservation is free again. */
const RESERVED_FOR_MS = 10 * 60_000;

/**
 * Reserves a port for this process, so that no other caller of freePort (in this process or another:
 * the test files start runtimes side by side) is handed the same one between its pick and its
 * listen. False when it is reserved already.
 */
function reserve(port: number): boolean {
  const path = join(RESERVATIONS, String(port));
  try {
    mkdirSync(RESERVATIONS, { recursive: true });
    writeFileSync(path, String(process.pid), { flag: "wx" });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") return true; // no reservations here: the listen check alone
    try {
      if (Date.now() - statSync(path).mtimeMs < RESERVED_FOR_MS) return false;
      writeFileSync(path, String(process.pid));
      return true;
    } catch {
      return false;
    }
  }
}

/**
 * A TCP port nothing listens on right now (loopback), chosen at random below the range outgoing
 * connections take their ports from, and reserved (see reserve), so only a program that does not ask
 * here can take it before it is used.
 */
export async function freePort(): Promise<number> {
  const { low } = ephemeralRange();
  const bottom = Math.max(10_000, low - 16_000);
  if (low - bottom >= 1_000) {
    for (let attempt = 0; attempt < 100; attempt++) {
      const candidate = bottom + randomInt(low - bottom);
      if (!reserve(candidate)) continue;
      const port = await listensOn(candidate);
      if (port !== undefined) return port;
    }
  }
  const port = await listensOn(0);
  if (port === undefined) throw new Error("no free TCP port on 127.0.0.1");
  return port;
}

/** The settings that place a runtime and its components on free ports, with its own data folder. */
export async function localComponentEnv(dataDir: string): Promise<Record<string, string>> {
  const [http, cosmos, blob, queue, replica] = [
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
  ];
  return {
    PORT: String(http),
    LOCAL_DATA_DIR: dataDir,
    LOCAL_SFTP_PORT: "0", // the SFTP drop on a free port; feeds still show SFTP_PORT
    REPLICA_PORT: String(replica),
    COSMOS_ENDPOINT: `http://127.0.0.1:${cosmos}`,
    STORAGE_CONNECTION_STRING: `DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==;BlobEndpoint=http://127.0.0.1:${blob}/devstoreaccount1;QueueEndpoint=http://127.0.0.1:${queue}/devstoreaccount1;`,
  };
}

export interface LaunchedRuntime {
  baseUrl: string;
  /** The port the SFTP drop listens on. */
  sftpPort: number;
  env: Record<string, string>;
  child: ChildProcess;
  output(): string;
  /** Like Ctrl-C: waits for the final snapshot and the components. */
  stop(): Promise<void>;
  /** A crash: SIGKILL, no clean-up. */
  kill(): Promise<void>;
}

/**
 * The service process's heap bound, as `npm start` sets it: without one V8 sizes its heap from the
 * machine's memory and lets garbage pile up to several hundred MB before collecting it.
 */
export const SERVICE_NODE_ARGS = ["--max-old-space-size=512"];

/** Starts `dist/local/main.js` with these settings and waits for its ready message. */
export async function launchRuntime(
  env: Record<string, string>,
  options: { execArgv?: string[]; timeoutMs?: number } = {},
): Promise<LaunchedRuntime> {
  const child = fork(join(projectRoot, "dist", "local", "main.js"), [], {
    cwd: projectRoot,
    env: { ...process.env, ...env },
    execArgv: [...SERVICE_NODE_ARGS, ...(options.execArgv ?? [])],
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  let output = "";
  child.stdout?.on("data", (c: Buffer) => (output += c.toString()));
  child.stderr?.on("data", (c: Buffer) => (output += c.toString()));
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  const timeoutMs = options.timeoutMs ?? 30_000;
  let sftpPort = 0;
  const baseUrl = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(() => {
      // Not left running: no one holds it to stop it, and on a loaded machine (a test run) a runtime
      // left behind slows every start after it, until those miss their deadline too. Its children
      // (Cosmos stand-in, Azurite, the replica's server) stop when its channel closes.
      child.kill("SIGKILL");
      reject(new Error(`runtime not ready within ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    child.on("message", (m: { type?: string; baseUrl?: string; sftpPort?: number }) => {
      if (m.type === "ready" && m.baseUrl !== undefined) {
        clearTimeout(timer);
        sftpPort = m.sftpPort ?? 0;
        resolveUrl(m.baseUrl);
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`runtime exited with ${code}:\n${output}`));
    });
  });
  const alive = (): boolean => child.exitCode === null && child.signalCode === null;
  return {
    baseUrl,
    sftpPort,
    env,
    child,
    output: () => output,
    async stop() {
      if (alive()) child.kill("SIGTERM");
      await exited;
    },
    async kill() {
      if (alive()) child.kill("SIGKILL");
      await exited;
    },
  };
}
