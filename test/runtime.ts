import { fork, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

export const root = resolve(__dirname, "..");
/** The signing key of the test runtime, so tests can forge tokens signed with the right key. */
export const TEST_JWT_KEY = Buffer.from("test-signing-key-0123456789-abcdefghijklmnop").toString("base64");
export const TEST_ISSUER = "http://test-issuer";
export const TEST_AUDIENCE = "investment-data-api";
export const BOOTSTRAP = { id: "test-admin", secret: "test-admin-secret-0123456789" };

export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolvePort(typeof address === "object" && address !== null ? address.port : 0));
    });
  });
}

export interface RuntimeEnv {
  [key: string]: string;
}

/** Settings for a runtime on free ports with its own data folder. */
export async function runtimeEnv(dataDir: string, overrides: RuntimeEnv = {}): Promise<RuntimeEnv> {
  const [http, cosmos, blob, queue] = [await freePort(), await freePort(), await freePort(), await freePort()];
  return {
    PORT: String(http),
    LOCAL_DATA_DIR: dataDir,
    COSMOS_ENDPOINT: `http://127.0.0.1:${cosmos}`,
    STORAGE_CONNECTION_STRING: `DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==;BlobEndpoint=http://127.0.0.1:${blob}/devstoreaccount1;QueueEndpoint=http://127.0.0.1:${queue}/devstoreaccount1;`,
    JWT_SIGNING_KEY: TEST_JWT_KEY,
    JWT_KEY_ID: "test-1",
    JWT_ISSUER: TEST_ISSUER,
    JWT_AUDIENCE: TEST_AUDIENCE,
    BOOTSTRAP_CLIENT_ID: BOOTSTRAP.id,
    BOOTSTRAP_CLIENT_SECRET: BOOTSTRAP.secret,
    // Premium and anonymous callers are the test suite itself; standard keeps the spec's 60/minute.
    RATE_LIMIT_PREMIUM_PER_MINUTE: "1000000",
    RATE_LIMIT_PREMIUM_PER_DAY: "10000000",
    RATE_LIMIT_ANONYMOUS_PER_MINUTE: "1000000",
    RATE_LIMIT_ANONYMOUS_PER_DAY: "10000000",
    AUTH_CLIENT_CACHE_SECONDS: "5",
    LOG_LEVEL: "warn",
    ...overrides,
  };
}

export interface Runtime {
  baseUrl: string;
  env: RuntimeEnv;
  child: ChildProcess;
  output: () => string;
  /** Ctrl-C-like stop: waits for the final snapshot and the children. */
  stop(): Promise<void>;
  /** A crash: SIGKILL, no clean-up. */
  kill(): Promise<void>;
}

/** Starts `dist/local/main.js` (the `npm start` runtime) and waits for its ready message. */
export async function startRuntime(env: RuntimeEnv): Promise<Runtime> {
  const child = fork(join(root, "dist", "local", "main.js"), [], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  let output = "";
  child.stdout?.on("data", (c: Buffer) => (output += c.toString()));
  child.stderr?.on("data", (c: Buffer) => (output += c.toString()));
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  const baseUrl = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error(`runtime not ready within 30 s:\n${output}`)), 30_000);
    child.on("message", (m: { type?: string; baseUrl?: string }) => {
      if (m.type === "ready" && m.baseUrl !== undefined) {
        clearTimeout(timer);
        resolveUrl(m.baseUrl);
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`runtime exited with ${code}:\n${output}`));
    });
  });
  return {
    baseUrl,
    env,
    child,
    output: () => output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      await exited;
    },
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await exited;
    },
  };
}

export function tempDir(prefix: string): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}
