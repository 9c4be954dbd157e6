import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { launchRuntime, localComponentEnv, projectRoot, type LaunchedRuntime } from "../local/launch";
import { seedDataFolder } from "./fresh-data-folder";

export const root = projectRoot;
/** The signing key of the test runtime, so tests can forge tokens signed with the right key. */
export const TEST_JWT_KEY = Buffer.from("test-signing-key-0123456789-abcdefghijklmnop").toString("base64");
/** The key sealing webhook secrets in the test runtime (WEBHOOK_SECRET_KEY). */
export const TEST_WEBHOOK_KEY = Buffer.from("test-webhook-secret-key-0123456789abcdef")
  .subarray(0, 32)
  .toString("base64");
export const TEST_ISSUER = "http://test-issuer";
export const TEST_AUDIENCE = "investment-data-api";
export const BOOTSTRAP = { id: "test-admin", secret: "test-admin-secret-0123456789" };

export interface RuntimeEnv {
  [key: string]: string;
}

/** Settings for a runtime on free ports with its own data folder. */
export async function runtimeEnv(dataDir: string, overrides: RuntimeEnv = {}): Promise<RuntimeEnv> {
  return {
    ...(await localComponentEnv(dataDir)),
    JWT_SIGNING_KEY: TEST_JWT_KEY,
    WEBHOOK_SECRET_KEY: TEST_WEBHOOK_KEY,
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
    // Files import in calls of 10,000 rows, so a test file a little over that spans two calls.
    FEED_IMPORT_BATCH_ROWS: "10000",
    LOG_LEVEL: "warn",
    ...overrides,
  };
}

export type Runtime = LaunchedRuntime;

/**
 * Starts `dist/local/main.js` (the `npm start` runtime) and waits for its ready message. A new data
 * folder gets the replica's cluster and the SFTP host key copied in rather than made (fresh-data-folder.ts).
 */
export async function startRuntime(env: RuntimeEnv): Promise<Runtime> {
  await seedDataFolder(env);
  return launchRuntime(env);
}

export function tempDir(prefix: string): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}
