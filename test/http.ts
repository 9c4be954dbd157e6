import { afterAll, beforeAll, inject } from "vitest";
import { BOOTSTRAP, runtimeEnv, startRuntime, tempDir, type Runtime } from "./runtime";

export interface Reply {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

/** This file's own runtime, when it asked for one (useOwnRuntime); otherwise the shared one. */
let own: { baseUrl: string; cosmosEndpoint: string; storageConnectionString: string; sftpPort: number } | undefined;

export function baseUrl(): string {
  return own?.baseUrl ?? inject("baseUrl");
}

/** The Azurite connection string of this file's own runtime (useOwnRuntime), for tests that put messages on its queues. */
export function storageConnectionString(): string {
  if (own === undefined) throw new Error("storageConnectionString() needs useOwnRuntime()");
  return own.storageConnectionString;
}

/** The shared runtime's SFTP drop port (a file with its own runtime gets it from that runtime). */
export function sharedSftpPort(): number {
  if (own !== undefined) throw new Error("sharedSftpPort() is the shared runtime's; this file has its own");
  return inject("sftpPort");
}

/** The port the SFTP drop of this file's own runtime (useOwnRuntime) listens on (feeds show SFTP_PORT). */
export function ownSftpPort(): number {
  if (own === undefined) throw new Error("ownSftpPort() needs useOwnRuntime()");
  return own.sftpPort;
}

export function cosmosEndpoint(): string {
  return own?.cosmosEndpoint ?? inject("cosmosEndpoint");
}

/**
 * Gives the calling test file a runtime of its own (call it at the top level of the file). Files
 * whose assertions depend on valuations and events use it: an FX import revalues every snapshot on
 * or after its date, so in a shared runtime one file's import would change another file's results.
 */
export function useOwnRuntime(overrides: Record<string, string> = {}): void {
  let runtime: Runtime | undefined;
  let data: ReturnType<typeof tempDir> | undefined;
  beforeAll(async () => {
    data = tempDir("ids-file-");
    runtime = await startRuntime(await runtimeEnv(data.path, overrides));
    own = {
      baseUrl: runtime.baseUrl,
      cosmosEndpoint: runtime.env.COSMOS_ENDPOINT ?? "",
      storageConnectionString: runtime.env.STORAGE_CONNECTION_STRING ?? "",
      sftpPort: runtime.sftpPort,
    };
  }, 60_000);
  afterAll(async () => {
    own = undefined;
    await runtime?.stop();
    data?.remove();
  }, 60_000);
}

/** One HTTP call to the runtime under test. `body` objects are sent as JSON, strings as they are. */
export async function call(
  method: string,
  path: string,
  options: { token?: string; body?: unknown; headers?: Record<string, string>; base?: string } = {},
): Promise<Reply> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token !== undefined) headers.Authorization = `Bearer ${options.token}`;
  let body: string | undefined;
  if (typeof options.body === "string") body = options.body;
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers["Content-Type"] ??= "application/json";
  }
  const response = await fetch(`${options.base ?? baseUrl()}${path}`, { method, headers, body, redirect: "manual" });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text === "" ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: response.headers, body: parsed, text };
}

export async function tokenFor(clientId: string, clientSecret: string, scope?: string, base?: string): Promise<string> {
  const form = new URLSearchParams({
    grant_type: "client_credentials",
    client_id: clientId,
    client_secret: clientSecret,
  });
  if (scope !== undefined) form.set("scope", scope);
  const reply = await call("POST", "/auth/token", {
    body: form.toString(),
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    ...(base !== undefined ? { base } : {}),
  });
  if (reply.status !== 200) throw new Error(`token request failed: ${reply.status} ${reply.text}`);
  return reply.body.access_token as string;
}

export const adminToken = (base?: string): Promise<string> => tokenFor(BOOTSTRAP.id, BOOTSTRAP.secret, undefined, base);

/** Creates an API client through the API and returns its credentials and a token. */
export async function newClient(
  admin: string,
  scopes: string[],
  tier: "standard" | "premium" = "premium",
): Promise<{ clientId: string; clientSecret: string; token: string }> {
  const reply = await call("POST", "/api/v1/settings/api-clients", {
    token: admin,
    body: { name: `test ${scopes.join(",")}`, scopes, tier },
  });
  if (reply.status !== 201) throw new Error(`client creation failed: ${reply.status} ${reply.text}`);
  const { clientId, clientSecret } = reply.body.data as { clientId: string; clientSecret: string };
  return { clientId, clientSecret, token: await tokenFor(clientId, clientSecret) };
}

let counter = 0;
/** A portfolio code unique to this test run. */
export const uniqueCode = (prefix = "P"): string => `${prefix}-${process.pid}-${Date.now().toString(36)}-${counter++}`;
