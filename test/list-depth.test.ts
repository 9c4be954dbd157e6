import { beforeAll, describe, expect, it } from "vitest";
import { adminToken, call } from "./http";
import { createSecurities, securityRecord } from "./investment-fixtures";

let token: string;
let securityId: string;
beforeAll(async () => {
  token = await adminToken();
  [securityId] = await createSecurities(token, [securityRecord()]);
});

describe("page numbers stop at 10,000 items deep, on every list", () => {
  const lists = (): string[] => [
    "/api/v1/portfolios",
    "/api/v1/securities",
    `/api/v1/securities/${securityId}/prices`,
    "/api/v1/transactions",
    "/api/v1/jobs",
    "/api/v1/exceptions",
    "/api/v1/settings/api-clients",
  ];

  it("answers page 50 of 200 (10,000 deep) and refuses page 51 with a detail on page pointing to cursor", async () => {
    for (const path of lists()) {
      const deepest = await call("GET", `${path}?page=50&pageSize=200`, { token });
      expect(deepest.status, `${path}: ${deepest.text}`).toBe(200);
      const beyond = await call("GET", `${path}?page=51&pageSize=200`, { token });
      expect(beyond.status, `${path}: ${beyond.text}`).toBe(400);
      expect(beyond.body.error.code).toBe("INVALID_REQUEST");
      expect(beyond.body.error.details).toEqual([{ field: "page", message: expect.stringContaining("cursor") }]);
      expect((await call("GET", `${path}?page=10001&pageSize=1`, { token })).status).toBe(400);
    }
  });

  it("documents the bound on the page parameter in OpenAPI", async () => {
    const doc = (await call("GET", "/api/v1/openapi.json")).body;
    for (const path of ["/api/v1/portfolios", "/api/v1/jobs"]) {
      const page = doc.paths[path].get.parameters.find((p: { name: string }) => p.name === "page");
      expect(page.description).toContain("10,000");
    }
  });
});
