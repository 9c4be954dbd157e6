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
        "/api/v1/settings/blob-sources",
        "/api/v1/settings/blob-sources/test",
        "/api/v1/settings/blob-sources/{id}",
        "/api/v1/settings/blob-sources/{id}/run",
        "/api/v1/settings/blob-sources/{id}/runs",
        "/api/v1/settings/webhooks",
        "/api/v1/settings/webhook-events",
        "/api/v1/settings/webhooks/{id}",
        "/api/v1/settings/webhooks/{id}/recover",
        "/api/v1/settings/webhooks/{id}/rotate-secret",
        "/api/v1/settings/webhooks/{id}/test",
        "/api/v1/settings/webhooks/{id}/deliveries",
        "/api/v1/settings/webhooks/{id}/deliveries/{deliveryId}",
        "/api/v1/settings/webhooks/{id}/deliveries/{deliveryId}/retry",
        "/api/v1/settings/feeds",
        "/api/v1/settings/feeds/{id}",
        "/api/v1/settings/feeds/{id}/rotate-credentials",
        "/api/v1/settings/feeds/{id}/test",
        "/api/v1/settings/exports",
        "/api/v1/settings/exports/{id}",
        "/api/v1/settings/exports/preview",
        "/api/v1/settings/exports/test-destination",
        "/api/v1/settings/exports/{id}/run",
        "/api/v1/settings/exports/{id}/runs",
        "/api/v1/settings/replica",
        "/api/v1/settings/replica/logins",
        "/api/v1/settings/replica/logins/{id}",
        "/api/v1/settings/replica/logins/{id}/rotate-password",
        "/api/v1/settings/audit",
        "/api/v1/import/{dataType}",
        "/api/v1/import/positions",
        "/api/v1/import/transactions",
        "/api/v1/import/prices",
        "/api/v1/import/fx-rates",
        "/api/v1/import/securities",
        "/api/v1/securities",
        "/api/v1/securities/{securityId}",
        "/api/v1/securities/{securityId}/prices",
        "/api/v1/transactions",
        "/api/v1/transactions/{transactionId}",
        "/api/v1/transactions/{transactionId}/history",
        "/api/v1/fx-rates",
        "/api/v1/portfolios/{portfolioId}/history",
        "/api/v1/securities/{securityId}/history",
        "/api/v1/securities/{securityId}/prices/history",
        "/api/v1/portfolios/{portfolioId}/holdings",
        "/api/v1/jobs",
        "/api/v1/jobs/{jobId}",
        "/api/v1/jobs/{jobId}/file",
        "/api/v1/jobs/{jobId}/reprocess",
        "/api/v1/exceptions",
        "/api/v1/exceptions/{exceptionId}",
        "/api/v1/exceptions/resolve",
      ].sort(),
    );
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
    const audit = doc.paths["/api/v1/settings/audit"].get;
    expect(audit.security).toEqual([{ bearerAuth: ["api.admin"] }]);
    expect(audit.parameters.map((p: { name: string }) => p.name).sort()).toEqual(
      ["actor", "cursor", "from", "page", "pageSize", "resourceId", "resourceType", "to"].sort(),
    );
    expect(doc.components.schemas.SettingsAuditEntry.properties.changes).toBeDefined();
    const list = doc.paths["/api/v1/portfolios"].get;
    expect(list.parameters.map((p: { name: string }) => p.name).sort()).toEqual([
      "asAt",
      "clientId",
      "currency",
      "page",
      "pageSize",
      "status",
    ]);
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

    // A job's file is documented as binary; Process again and the bulk resolve as JSON, with their errors.
    const file = doc.paths["/api/v1/jobs/{jobId}/file"].get;
    expect(file.security).toEqual([{ bearerAuth: ["api.read"] }]);
    expect(file.responses["200"].content["application/octet-stream"].schema).toMatchObject({ format: "binary" });
    expect(Object.keys(file.responses)).toContain("404");
    const reprocess = doc.paths["/api/v1/jobs/{jobId}/reprocess"].post;
    expect(reprocess.security).toEqual([{ bearerAuth: ["api.write"] }]);
    expect(Object.keys(reprocess.responses)).toEqual(expect.arrayContaining(["202", "404", "409", "422"]));
    expect(doc.components.schemas.RefreshJob.properties.reprocessOf).toBeDefined();
    const bulk = doc.paths["/api/v1/exceptions/resolve"].post;
    expect(bulk.requestBody.content["application/json"].schema).toEqual({
      $ref: "#/components/schemas/ExceptionBulkResolve",
    });
    expect(doc.components.schemas.ExceptionBulkResolve.required).toEqual(["ids"]);

    const imports = doc.paths["/api/v1/import/{dataType}"].post;
    expect(imports.security).toEqual([{ bearerAuth: ["api.write"] }]);
    const dataType = imports.parameters.find((p: { name: string }) => p.name === "dataType");
    expect(dataType.schema.enum).toEqual(["positions", "transactions", "prices", "fx-rates", "securities"]);
    expect(imports.parameters.find((p: { name: string }) => p.name === "Idempotency-Key")).toMatchObject({
      in: "header",
      required: false,
    });
    expect(imports.requestBody.content["application/json"].schema.anyOf).toHaveLength(5);
    // Each data type's import is an operation of its own, with its own body.
    for (const [dataType, schema] of [
      ["positions", "Import_positions"],
      ["transactions", "Import_transactions"],
      ["prices", "Import_prices"],
      ["fx-rates", "Import_fxRates"],
      ["securities", "Import_securities"],
    ]) {
      const operation = doc.paths[`/api/v1/import/${dataType}`].post;
      expect(operation.operationId).toBe(`import-${dataType}`);
      expect(operation.security).toEqual([{ bearerAuth: ["api.write"] }]);
      expect(operation.requestBody.content["application/json"].schema).toEqual({
        $ref: `#/components/schemas/${schema}`,
      });
      expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(["200", "409", "413", "422"]));
    }
    expect(Object.keys(imports.responses)).toEqual(expect.arrayContaining(["200", "409", "413", "422"]));
    for (const name of [
      "Import_prices",
      "Import_positions",
      "Import_transactions",
      "Import_fxRates",
      "Import_securities",
      "Security",
      "Price",
      "Transaction",
      "Holdings",
      "RefreshJob",
      "DataQualityException",
      "CursorPagination",
    ]) {
      expect(doc.components.schemas[name], name).toBeDefined();
    }
    // A price's currency is required only when the record creates the price (a merge keeps the stored one).
    expect(doc.components.schemas.PriceImport.required).toEqual(["isin", "date", "price", "type", "source"]);
    expect(doc.components.schemas.PriceImport.properties.currency.description).toMatch(
      /required when the record creates/,
    );
    // Every field of a security record is optional (a record keyed by id or isin carries what changes): no `required`.
    expect(doc.components.schemas.SecurityImport.required).toBeUndefined();
    expect(doc.components.schemas.TransactionImport.required).toEqual(["externalId"]);
    const transactions = doc.paths["/api/v1/transactions"].get;
    expect(transactions.parameters.map((p: { name: string }) => p.name).sort()).toEqual([
      "asAt",
      "cursor",
      "from",
      "page",
      "pageSize",
      "portfolioId",
      "securityId",
      "status",
      "to",
      "type",
    ]);
    // Time travel: asAt on every read of investment data, X-As-At on their answers, the histories' entries.
    for (const path of [
      "/api/v1/portfolios",
      "/api/v1/portfolios/{portfolioId}",
      "/api/v1/portfolios/{portfolioId}/holdings",
      "/api/v1/securities",
      "/api/v1/securities/{securityId}",
      "/api/v1/securities/{securityId}/prices",
      "/api/v1/transactions",
      "/api/v1/transactions/{transactionId}",
      "/api/v1/fx-rates",
    ]) {
      const get = doc.paths[path].get;
      const asAt = get.parameters.find((p: { name: string }) => p.name === "asAt");
      expect(asAt, path).toMatchObject({
        in: "query",
        required: false,
        schema: { type: "string", format: "date-time" },
      });
      expect(asAt.description ?? asAt.schema.description, path).toMatch(/instant/);
      expect(get.responses["200"].headers["X-As-At"], path).toBeDefined();
    }
    for (const name of ["PortfolioVersion", "SecurityVersion", "PriceVersion", "TransactionVersion", "FxRate"]) {
      expect(doc.components.schemas[name], name).toBeDefined();
    }
    expect(Object.keys(doc.components.schemas.TransactionVersion.properties)).toEqual(
      expect.arrayContaining(["version", "recordedAt", "recordedBy", "requestId", "jobId", "change", "record"]),
    );
    expect(
      doc.paths["/api/v1/securities/{securityId}/prices/history"].get.parameters.map((p: { name: string }) => p.name),
    ).toEqual(expect.arrayContaining(["date", "type", "source", "cursor"]));
    const feedCreate = doc.paths["/api/v1/settings/feeds"].post;
    expect(feedCreate.security).toEqual([{ bearerAuth: ["api.admin"] }]);
    expect(feedCreate.requestBody.content["application/json"].schema).toBeDefined();
    const dryRun = doc.paths["/api/v1/settings/feeds/{id}/test"].post;
    expect(dryRun.requestBody.content["application/octet-stream"].schema).toMatchObject({
      type: "string",
      format: "binary",
    });
    expect(dryRun.parameters.map((p: { name: string }) => p.name).sort()).toEqual(["fileName", "id"]);
    expect(Object.keys(dryRun.responses)).toEqual(expect.arrayContaining(["200", "404", "413", "422"]));
    for (const name of ["Feed", "FeedWithPassword", "FeedCreate", "FeedPatch", "FeedOptions", "FeedDryRun"])
      expect(doc.components.schemas[name], name).toBeDefined();
    expect(
      doc.paths["/api/v1/portfolios/{portfolioId}/holdings"].get.parameters.map((p: { name: string }) => p.name).sort(),
    ).toEqual(["asAt", "date", "lookThrough", "portfolioId"]);
  });
});
