import { describe, expect, it } from "vitest";
import { adminToken, call, newClient } from "./http";

describe("GET /api/v1/settings/webhook-events: the event catalogue (what Add Webhook offers)", () => {
  it("lists every event a webhook can subscribe to, each with its meaning and an example envelope", async () => {
    const admin = await adminToken();
    const reply = await call("GET", "/api/v1/settings/webhook-events", { token: admin });
    expect(reply.status).toBe(200);
    const events = reply.body.data as {
      name: string;
      description: string;
      example: { id: string; event: string; timestamp: string; data: Record<string, unknown> };
    }[];
    // The same names as the ones a webhook may subscribe to (the create body's enum).
    const doc = (await call("GET", "/api/v1/openapi.json")).body;
    expect(events.map((e) => e.name)).toEqual(doc.components.schemas.WebhookCreate.properties.events.items.enum);
    for (const event of events) {
      expect(event.description.length, event.name).toBeGreaterThan(10);
      expect(event.example.event).toBe(event.name);
      expect(Number.isNaN(Date.parse(event.example.timestamp))).toBe(false);
    }
    const data = (name: string): Record<string, unknown> => events.find((e) => e.name === name)?.example.data ?? {};
    // The fields API.md gives each event's data.
    expect(events.map((e) => e.name)).toEqual([
      "portfolio.valued",
      "transaction.settled",
      "exception.created",
      "exception.resolved",
      "refresh_job.completed",
      "refresh_job.failed",
    ]);
    expect(Object.keys(data("portfolio.valued")).sort()).toEqual([
      "asAt",
      "complete",
      "currency",
      "portfolioId",
      "totalValue",
      "unvaluedCount",
      "valuationDate",
    ]);
    expect(Object.keys(data("transaction.settled")).sort()).toEqual([
      "asAt",
      "currency",
      "netAmount",
      "portfolioId",
      "quantity",
      "securityId",
      "settlementDate",
      "transactionId",
    ]);
    expect(Object.keys(data("exception.created")).sort()).toEqual([
      "entity",
      "exceptionId",
      "message",
      "severity",
      "type",
    ]);
    expect(Object.keys(data("exception.resolved")).sort()).toEqual(["exceptionId", "resolution", "resolvedBy", "type"]);
    expect(Object.keys(data("refresh_job.failed"))).toEqual(
      expect.arrayContaining(["jobId", "source", "dataType", "counts", "startedAt", "completedAt", "error"]),
    );
    expect(doc.paths["/api/v1/settings/webhook-events"].get.security).toEqual([{ bearerAuth: ["api.admin"] }]);
  });

  it("is System Settings: a client without api.admin gets 403", async () => {
    const reader = await newClient(await adminToken(), ["api.read"]);
    const reply = await call("GET", "/api/v1/settings/webhook-events", { token: reader.token });
    expect(reply.status).toBe(403);
    expect(reply.body.error.code).toBe("FORBIDDEN");
  });
});
