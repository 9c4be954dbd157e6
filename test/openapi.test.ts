import { validate } from "@readme/openapi-parser";
import { describe, expect, it } from "vitest";
import { call } from "./http";

describe("GET /api/v1/openapi.json", () => {
  it("is a valid OpenAPI 3.1 document, served without a token", async () => {
    const reply = await call("GET", "/api/v1/openapi.json");
    expect(reply.status).toBe(200);
    expect(reply.body.openapi).toBe("3.1.0");
    const result = await validate(structuredClone(reply.body));
    expect(result.valid, JSON.stringify(result)).toBe(true);
  });

  it("documents every route, its parameters, bodies, errors and the security scheme", async () => {
    const doc = (await call("GET", "/api/v1/openapi.json")).body;
    expect(Object.keys(doc.paths).sort()).toEqual(
      [
        "/auth/token",
        "/api/v1/openapi.json",
        "/api/v1/portfolios",
        "/api/v1/portfolios/{portfolioId}",
        "/api/v1/settings/api-clients",
        "/api/v1/settings/api-clients/{clientId}",
        "/api/v1/settings/api-clients/{clientId}/rotate-secret",
      ].sort(),
    );
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
    const list = doc.paths["/api/v1/portfolios"].get;
    expect(list.parameters.map((p: { name: string }) => p.name).sort()).toEqual(["clientId", "currency", "page", "pageSize", "status"]);
    expect(list.security).toEqual([{ bearerAuth: ["api.read"] }]);
    expect(Object.keys(list.responses).sort()).toEqual(["200", "400", "401", "403", "429", "500", "503"]);
    const create = doc.paths["/api/v1/portfolios"].post;
    expect(create.requestBody.content["application/json"].schema).toBeDefined();
    expect(Object.keys(create.responses)).toEqual(expect.arrayContaining(["201", "409", "413", "422"]));
    const patch = doc.paths["/api/v1/portfolios/{portfolioId}"].patch;
    expect(patch.parameters[0]).toMatchObject({ name: "portfolioId", in: "path", required: true });
    const token = doc.paths["/auth/token"].post;
    expect(token.requestBody.content["application/x-www-form-urlencoded"]).toBeDefined();
    expect(token.security).toEqual([]);
    expect(doc.components.schemas.Error).toBeDefined();
    expect(doc.components.schemas.Portfolio.properties.status.enum).toEqual(["active", "inactive", "archived"]);
  });
});
