import { describe, expect, it } from "vitest";
import { compileRoute } from "./route-template";

describe("compileRoute", () => {
  it("matches literal segments case-insensitively and decodes each parameter on its own", () => {
    const route = compileRoute("api/v1/portfolios/{portfolioId}/holdings");
    expect(route.match("/api/v1/portfolios/p%201/holdings")).toEqual({ portfolioId: "p 1" });
    expect(route.match("/API/V1/Portfolios/p1/holdings/")).toEqual({ portfolioId: "p1" });
    // An encoded slash stays inside its segment; a malformed escape is handed on as sent.
    expect(route.match("/api/v1/portfolios/a%2Fb/holdings")).toEqual({ portfolioId: "a/b" });
    expect(route.match("/api/v1/portfolios/%ZZ/holdings")).toEqual({ portfolioId: "%ZZ" });
    expect(route.match("/api/v1/portfolios/a/b/holdings")).toBeUndefined();
    expect(route.match("/api/v1/portfolios//holdings")).toBeUndefined();
    expect(route).toMatchObject({ catchAll: false, literals: 4 });
  });

  it("supports catch-all, optional and constrained parameters", () => {
    expect(compileRoute("{*path}").match("/a/b/c")).toEqual({ path: "a/b/c" });
    expect(compileRoute("{*path}").match("/")).toEqual({ path: "" });
    expect(compileRoute("{*path}")).toMatchObject({ catchAll: true, literals: 0 });
    expect(compileRoute("items/{id?}").match("/items")).toEqual({});
    expect(compileRoute("items/{id:int}").match("/items/42")).toEqual({ id: "42" });
    expect(compileRoute("items/{id:int?}").match("/items")).toEqual({});
  });

  it("applies a regex constraint to the decoded value, case-insensitively, and refuses an empty catch-all as ASP.NET does", () => {
    const route = compileRoute("{*path:regex(^(?!(admin|runtime)(\\W|$)).*$)}");
    expect(route.match("/api/v1/nothing")).toEqual({ path: "api/v1/nothing" });
    expect(route.match("/auth/token")).toEqual({ path: "auth/token" });
    expect(route.match("/administrators")).toEqual({ path: "administrators" });
    expect(route.match("/runtime/webhooks/blobs")).toBeUndefined();
    expect(route.match("/Runtime/webhooks/blobs")).toBeUndefined();
    expect(route.match("/admin/host/status")).toBeUndefined();
    expect(route.match("/admin")).toBeUndefined();
    expect(route.match("/")).toBeUndefined();
    expect(route).toMatchObject({ catchAll: true, literals: 0 });
  });
});
