import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import openapiTS, { astToString, type OpenAPI3 } from "openapi-typescript";
import createClient from "openapi-fetch";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminToken, baseUrl, call } from "./http";
import { root } from "./runtime";

// The generated files sit inside the project so that `openapi-fetch` resolves from its node_modules.
const cache = join(root, "node_modules", ".cache");

/** Type-checks `source` against the generated `paths`; returns the compiler's messages. */
function typeCheck(dir: string, name: string, source: string): string[] {
  const file = join(dir, name);
  writeFileSync(file, source);
  const program = ts.createProgram([file], {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    skipLibCheck: true,
    types: [],
    lib: ["lib.es2022.d.ts", "lib.dom.d.ts"],
  });
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
}

describe("a typed client generated from the OpenAPI document (openapi-typescript + openapi-fetch)", () => {
  let dir: string;
  beforeAll(async () => {
    mkdirSync(cache, { recursive: true });
    dir = mkdtempSync(join(cache, "openapi-client-"));
    const document = (await call("GET", "/api/v1/openapi.json")).body as OpenAPI3;
    writeFileSync(join(dir, "api.d.ts"), astToString(await openapiTS(document)));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const client = (query: string): string => `
import createClient from "openapi-fetch";
import type { paths } from "./api";
const client = createClient<paths>({ baseUrl: "http://127.0.0.1" });
export async function run(): Promise<number | undefined> {
  const holdings = await client.GET("/api/v1/portfolios/{portfolioId}/holdings", {
    params: { path: { portfolioId: "p1" }, query: ${query} },
  });
  const list = await client.GET("/api/v1/portfolios", { params: { query: { page: 2, pageSize: 10, status: "active" } } });
  const prices = await client.GET("/api/v1/securities/{securityId}/prices", { params: { path: { securityId: "s" }, query: { pageSize: 200, type: "close" } } });
  const total: number | undefined = holdings.data?.data.totalValue;
  return total ?? list.data?.pagination.totalItems ?? prices.data?.data.length;
}
`;

  it("compiles a client that passes lookThrough as a boolean and page sizes as numbers", () => {
    expect(typeCheck(dir, "client.ts", client(`{ lookThrough: true, date: "2024-03-28" }`))).toEqual([]);
  });

  it("rejects a client that passes lookThrough as a string (the check can fail)", () => {
    const messages = typeCheck(dir, "bad-client.ts", client(`{ lookThrough: "true" }`));
    expect(messages.join("\n")).toMatch(/lookThrough|boolean/);
  });

  it("knows each import's body: positions compile for /api/v1/import/positions, prices sent there do not", () => {
    const source = `
import createClient from "openapi-fetch";
import type { paths } from "./api";
const client = createClient<paths>({ baseUrl: "http://127.0.0.1" });
export async function run(): Promise<number | undefined> {
  const positions = await client.POST("/api/v1/import/positions", {
    body: { positions: [{ portfolioCode: "P-1", isin: "US0378331005", date: "2024-03-28", quantity: 100 }] },
  });
  const prices = await client.POST("/api/v1/import/prices", {
    body: { prices: [{ isin: "US0378331005", date: "2024-03-28", price: 171.48, currency: "USD", type: "close", source: "Bloomberg" }] },
  });
  await client.POST("/api/v1/import/positions", {
    // @ts-expect-error prices are not a positions import's body: without this error the directive itself is reported
    body: { prices: [{ isin: "US0378331005", date: "2024-03-28", price: 171.48, currency: "USD", type: "close", source: "Bloomberg" }] },
  });
  return positions.data?.data.received ?? prices.data?.data.received;
}
`;
    // The @ts-expect-error line must fail to compile: were it accepted, the unused directive would be reported here.
    expect(typeCheck(dir, "import-client.ts", source)).toEqual([]);
  });

  it("posts to /api/v1/import/positions on the wire, and the service answers as for {dataType}", async () => {
    const api = createClient({ baseUrl: baseUrl(), headers: { Authorization: `Bearer ${await adminToken()}` } });
    const refused = await api.POST(
      "/api/v1/import/positions" as never,
      {
        body: {
          positions: [{ portfolioCode: "NO-SUCH-PORTFOLIO", isin: "US0378331005", date: "2024-03-28", quantity: 1 }],
        },
      } as never,
    );
    expect(refused.response.status).toBe(422);
  });

  it("sends lookThrough=true on the wire, and the service accepts it", async () => {
    const api = createClient({ baseUrl: baseUrl(), headers: { Authorization: `Bearer ${await adminToken()}` } });
    const missing = await api.GET(
      "/api/v1/portfolios/{portfolioId}/holdings" as never,
      {
        params: { path: { portfolioId: "no-such-portfolio" }, query: { lookThrough: true } },
      } as never,
    );
    expect(missing.response.status).toBe(404);
    expect(new URL(missing.response.url).searchParams.get("lookThrough")).toBe("true");
  });
});
