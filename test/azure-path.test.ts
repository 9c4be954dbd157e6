import { HttpRequest, type HttpResponseInit } from "@azure/functions";
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type * as FunctionsHostModule from "../local/functions-host";
import type { LoadedFunction } from "../local/functions-host";
import { startCosmos, startFaultProxy } from "./cosmos-stand-in";
import { BOOTSTRAP, root, TEST_JWT_KEY, TEST_WEBHOOK_KEY } from "./runtime";

/**
 * The compiled functions as Azure runs them: loaded through `@azure/functions`, invoked through their
 * registered handlers, against a fresh store (a fault proxy in front of the stand-in), with nothing done
 * at start-up by the local runtime.
 */
describe("the Azure path, in process (fresh store behind a fault proxy)", () => {
  const load = createRequire(join(root, "dist", "index.js"));
  let cosmos: Awaited<ReturnType<typeof startCosmos>>;
  let proxy: Awaited<ReturnType<typeof startFaultProxy>>;
  let functions: LoadedFunction[];
  const savedEnv = { ...process.env };

  const invoke = async (
    name: string,
    init: ConstructorParameters<typeof HttpRequest>[0],
  ): Promise<{ status: number; headers: Headers; body: any }> => {
    const fn = functions.find((f) => f.name === name);
    if (fn === undefined) throw new Error(`no function ${name}`);
    const host = load("./local/functions-host.js") as typeof FunctionsHostModule;
    const result = (await fn.handler(
      new HttpRequest(init),
      host.invocationContext(name, () => {}),
    )) as HttpResponseInit;
    const text = typeof result.body === "string" ? result.body : "";
    return {
      status: result.status ?? 200,
      headers: new Headers(result.headers),
      body: text === "" ? undefined : JSON.parse(text),
    };
  };

  beforeAll(async () => {
    cosmos = await startCosmos();
    proxy = await startFaultProxy(cosmos.endpoint);
    Object.assign(process.env, {
      COSMOS_ENDPOINT: proxy.endpoint,
      COSMOS_KEY: "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==",
      COSMOS_DATABASE: "unit",
      COSMOS_ENDPOINT_DISCOVERY: "false",
      JWT_SIGNING_KEY: TEST_JWT_KEY,
      WEBHOOK_SECRET_KEY: TEST_WEBHOOK_KEY,
      BOOTSTRAP_CLIENT_ID: BOOTSTRAP.id,
      BOOTSTRAP_CLIENT_SECRET: BOOTSTRAP.secret,
      LOG_LEVEL: "error",
    });
    const host = load("./local/functions-host.js") as typeof FunctionsHostModule;
    functions = host.loadFunctions(root);
  });
  afterAll(async () => {
    process.env = savedEnv;
    await proxy.stop();
    await cosmos.stop();
  });

  const token = async (): Promise<string> => {
    const form = new URLSearchParams({
      grant_type: "client_credentials",
      client_id: BOOTSTRAP.id,
      client_secret: BOOTSTRAP.secret,
    });
    const reply = await invoke("auth-token", {
      method: "POST",
      url: "http://localhost/auth/token",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: { string: form.toString() },
    });
    expect(reply.status).toBe(200);
    return reply.body.access_token as string;
  };

  it("a fresh deployment issues the bootstrap client's first token, with no start-up step of the local runtime", async () => {
    expect(await token()).toMatch(/^ey/);
  });

  it("throttling that outlasts the SDK's retries answers 503 SERVICE_UNAVAILABLE with Retry-After in the error shape", async () => {
    const admin = await token();
    proxy.fault((r) =>
      r.path.endsWith("/colls/portfolios/docs") && r.headers["x-ms-documentdb-isquery"] !== undefined
        ? { status: 429, retryAfterMs: 100 }
        : undefined,
    );
    try {
      const reply = await invoke("portfolios-list", {
        method: "GET",
        url: "http://localhost/api/v1/portfolios",
        headers: { authorization: `Bearer ${admin}` },
      });
      expect(reply.status).toBe(503);
      expect(reply.headers.get("retry-after")).toBe("1");
      expect(reply.body.error).toMatchObject({
        code: "SERVICE_UNAVAILABLE",
        message: expect.any(String),
        requestId: expect.any(String),
      });
    } finally {
      proxy.fault(undefined);
    }
    const healthy = await invoke("portfolios-list", {
      method: "GET",
      url: "http://localhost/api/v1/portfolios",
      headers: { authorization: `Bearer ${admin}` },
    });
    expect(healthy.status).toBe(200);
  });
});

/** The compiled app in a worker of its own (local/app-worker.ts), serving its HTTP functions on loopback. */
async function startWorker(env: Record<string, string>): Promise<{
  baseUrl: string;
  functions: { name: string; trigger: string }[];
  log(): string;
  stop(): void;
}> {
  const child = spawn(process.execPath, [join(root, "dist", "local", "app-worker.js"), root], {
    env: { PATH: process.env.PATH ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
  const ready = await new Promise<{ port: number; functions: { name: string; trigger: string }[] }>(
    (resolve, reject) => {
      let stdout = "";
      child.stdout.on("data", (c: Buffer) => {
        stdout += c.toString();
        const line = stdout.split("\n").find((l) => l.startsWith("{"));
        if (line !== undefined)
          resolve(JSON.parse(line) as { port: number; functions: { name: string; trigger: string }[] });
      });
      child.once("exit", (code) => reject(new Error(`app worker exited with ${code}: ${stderr}`)));
    },
  );
  return {
    baseUrl: `http://127.0.0.1:${ready.port}`,
    functions: ready.functions,
    log: () => stderr,
    stop: () => void child.kill("SIGKILL"),
  };
}

describe("an unresolved Key Vault reference (App Service leaves the literal @Microsoft.KeyVault(...) when it cannot read the secret)", () => {
  let worker: Awaited<ReturnType<typeof startWorker>>;
  beforeAll(async () => {
    worker = await startWorker({
      COSMOS_ENDPOINT: "https://127.0.0.1:9/",
      JWT_SIGNING_KEY: "@Microsoft.KeyVault(SecretUri=https://kvinvdata.vault.azure.net/secrets/jwt-signing-key/)",
      WEBHOOK_SECRET_KEY: TEST_WEBHOOK_KEY,
      BOOTSTRAP_CLIENT_ID: BOOTSTRAP.id,
      // Long enough for the schema's 16 characters: never taken for the secret itself.
      BOOTSTRAP_CLIENT_SECRET:
        "@Microsoft.KeyVault(SecretUri=https://kvinvdata.vault.azure.net/secrets/bootstrap-client-secret/)",
    });
  }, 120_000);
  afterAll(() => worker?.stop());

  it("keeps the app answering: every HTTP function registers, and no trigger that would fail its work on the way to a dead-letter queue", () => {
    const http = worker.functions.filter((f) => f.trigger === "httpTrigger");
    expect(http.map((f) => f.name)).toEqual(
      expect.arrayContaining(["openapi-get", "auth-token", "portfolios-list", "not-found"]),
    );
    expect(worker.functions.filter((f) => f.trigger !== "httpTrigger")).toEqual([]);
  });

  it("answers 503 SERVICE_UNAVAILABLE in the error shape, telling the client nothing of its settings", async () => {
    for (const path of ["/api/v1/openapi.json", "/api/v1/portfolios", "/api/v1/nothing"]) {
      const response = await fetch(`${worker.baseUrl}${path}`);
      expect(response.status, path).toBe(503);
      expect(response.headers.get("retry-after")).toBe("60");
      const body = (await response.json()) as { error: { code: string; message: string; requestId: string } };
      expect(body.error).toMatchObject({
        code: "SERVICE_UNAVAILABLE",
        message: expect.any(String),
        requestId: expect.any(String),
      });
      expect(response.headers.get("x-request-id")).toBe(body.error.requestId);
      expect(JSON.stringify(body)).not.toMatch(/KeyVault|JWT_SIGNING_KEY|BOOTSTRAP/i);
    }
    // The token endpoint in RFC 6749's shape; the literal reference is never a password.
    const token = await fetch(`${worker.baseUrl}/auth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "client_credentials",
        client_id: BOOTSTRAP.id,
        client_secret:
          "@Microsoft.KeyVault(SecretUri=https://kvinvdata.vault.azure.net/secrets/bootstrap-client-secret/)",
      }).toString(),
    });
    expect(token.status).toBe(503);
    expect(await token.json()).toMatchObject({ error: "temporarily_unavailable" });
  });

  it("names the unresolved settings in its log, at start and when it answers 503", () => {
    const log = worker.log();
    expect(log).toMatch(/Settings at fault: JWT_SIGNING_KEY, BOOTSTRAP_CLIENT_SECRET/);
    expect(log).toContain("JWT_SIGNING_KEY: is an unresolved Key Vault reference");
    expect(log).toContain("the app's settings are unusable: every request answers 503");
  });
});
