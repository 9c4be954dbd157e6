import { HttpRequest, type HttpResponseInit } from "@azure/functions";
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
