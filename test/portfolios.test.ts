import { beforeAll, describe, expect, it } from "vitest";
import { adminToken, call, uniqueCode } from "./http";

interface PortfolioInput {
  name?: string;
  code?: string;
  clientId?: string;
  baseCurrency?: string;
  type?: string;
  status?: string;
  memberIds?: string[];
}

describe("portfolios", () => {
  let token: string;
  const create = (body: PortfolioInput) =>
    call("POST", "/api/v1/portfolios", {
      token,
      body: { name: "Fund", clientId: "client-a", baseCurrency: "EUR", code: uniqueCode(), ...body },
    });

  beforeAll(async () => {
    token = await adminToken();
  });

  it("creates a portfolio: 201, Location, and the spec's fields", async () => {
    const code = uniqueCode("GROWTH");
    const reply = await create({ name: "Growth", code, clientId: "client-1", baseCurrency: "USD" });
    expect(reply.status).toBe(201);
    const p = reply.body.data;
    expect(p).toMatchObject({
      name: "Growth",
      code,
      clientId: "client-1",
      baseCurrency: "USD",
      type: "standard",
      status: "active",
      totalValue: null,
      latestValuationDate: null,
    });
    expect(p.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(reply.headers.get("location")).toBe(`/api/v1/portfolios/${p.id}`);

    const got = await call("GET", `/api/v1/portfolios/${p.id}`, { token });
    expect(got.status).toBe(200);
    expect(got.body.data).toEqual(p);
  });

  it("409 CONFLICT on a duplicate code, whatever its case", async () => {
    const code = uniqueCode("DUP");
    expect((await create({ code })).status).toBe(201);
    const again = await create({ code });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe("CONFLICT");
    expect((await create({ code: code.toLowerCase() })).status).toBe(409);
  });

  it("422 VALIDATION_ERROR with details, and nothing written", async () => {
    const code = uniqueCode("BAD");
    const reply = await create({ code, baseCurrency: "EURO", name: "", type: "hedge" });
    expect(reply.status).toBe(422);
    expect(reply.body.error.code).toBe("VALIDATION_ERROR");
    const fields = reply.body.error.details.map((d: { field: string }) => d.field).sort();
    expect(fields).toEqual(["baseCurrency", "name", "type"]);
    const list = await call("GET", `/api/v1/portfolios?clientId=client-a&pageSize=200`, { token });
    expect(list.body.data.some((p: { code: string }) => p.code === code)).toBe(false);
    const missing = await call("POST", "/api/v1/portfolios", { token, body: { name: "x" } });
    expect(missing.status).toBe(422);
    expect(missing.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual([
      "baseCurrency",
      "clientId",
      "code",
    ]);
  });

  it("composites need existing, non-composite members", async () => {
    const a = (await create({})).body.data;
    const fund = (await create({ type: "fund" })).body.data;
    const composite = await create({ type: "composite", memberIds: [a.id, fund.id] });
    expect(composite.status).toBe(201);
    expect(composite.body.data.memberIds).toEqual([a.id, fund.id]);

    const noMembers = await create({ type: "composite" });
    expect(noMembers.status).toBe(422);
    expect(noMembers.body.error.details[0].field).toBe("memberIds");

    const unknown = await create({ type: "composite", memberIds: [a.id, "does-not-exist"] });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error.details).toEqual([
      { field: "memberIds[1]", message: expect.stringContaining("does not exist") },
    ]);

    const nested = await create({ type: "composite", memberIds: [composite.body.data.id] });
    expect(nested.status).toBe(422);

    const membersOnStandard = await create({ memberIds: [a.id] });
    expect(membersOnStandard.status).toBe(422);
  });

  it("lists with filters that combine, and paginates", async () => {
    const clientId = uniqueCode("client");
    const made = [];
    for (const [currency, status] of [
      ["EUR", "active"],
      ["EUR", "inactive"],
      ["USD", "active"],
      ["EUR", "active"],
      ["GBP", "active"],
    ] as const) {
      made.push((await create({ clientId, baseCurrency: currency, status })).body.data);
    }
    const all = await call("GET", `/api/v1/portfolios?clientId=${clientId}`, { token });
    expect(all.status).toBe(200);
    expect(all.body.pagination).toEqual({ page: 1, pageSize: 50, totalItems: 5, totalPages: 1 });

    const eurActive = await call("GET", `/api/v1/portfolios?clientId=${clientId}&currency=EUR&status=active`, {
      token,
    });
    expect(eurActive.body.data.map((p: { id: string }) => p.id).sort()).toEqual([made[0].id, made[3].id].sort());
    expect(
      eurActive.body.data.every(
        (p: { baseCurrency: string; status: string }) => p.baseCurrency === "EUR" && p.status === "active",
      ),
    ).toBe(true);

    const page2 = await call("GET", `/api/v1/portfolios?clientId=${clientId}&pageSize=2&page=2`, { token });
    expect(page2.body.pagination).toEqual({ page: 2, pageSize: 2, totalItems: 5, totalPages: 3 });
    expect(page2.body.data).toHaveLength(2);
    const page3 = await call("GET", `/api/v1/portfolios?clientId=${clientId}&pageSize=2&page=3`, { token });
    expect(page3.body.data).toHaveLength(1);
    const sorted = [...made].map((p) => p.code).sort();
    expect([...page2.body.data, ...page3.body.data].map((p: { code: string }) => p.code)).toEqual(sorted.slice(2));
    const beyond = await call("GET", `/api/v1/portfolios?clientId=${clientId}&page=9`, { token });
    expect(beyond.status).toBe(200);
    expect(beyond.body.data).toEqual([]);
  });

  it.each([
    ["pageSize=201", "pageSize"],
    ["pageSize=0", "pageSize"],
    ["page=0", "page"],
    ["page=abc", "page"],
    ["status=closed", "status"],
    ["currency=XYZ", "currency"],
  ])("400 INVALID_REQUEST naming the parameter for %s", async (query, field) => {
    const reply = await call("GET", `/api/v1/portfolios?${query}`, { token });
    expect(reply.status).toBe(400);
    expect(reply.body.error.code).toBe("INVALID_REQUEST");
    expect(reply.body.error.details[0].field).toBe(field);
  });

  it("404 for a missing portfolio", async () => {
    const reply = await call("GET", "/api/v1/portfolios/no-such-portfolio", { token });
    expect(reply.status).toBe(404);
    expect(reply.body.error.code).toBe("NOT_FOUND");
    expect(
      (await call("PATCH", "/api/v1/portfolios/no-such-portfolio", { token, body: { status: "inactive" } })).status,
    ).toBe(404);
  });

  it("follows the status transitions: active ⇄ inactive, → archived, archived final", async () => {
    const p = (await create({})).body.data;
    const path = `/api/v1/portfolios/${p.id}`;
    const toInactive = await call("PATCH", path, { token, body: { status: "inactive" } });
    expect(toInactive.status).toBe(200);
    expect(toInactive.body.data.status).toBe("inactive");
    expect(toInactive.body.data.updatedAt >= p.updatedAt).toBe(true);
    expect((await call("PATCH", path, { token, body: { status: "active", name: "Renamed" } })).body.data).toMatchObject(
      { status: "active", name: "Renamed" },
    );
    expect((await call("PATCH", path, { token, body: { status: "archived" } })).status).toBe(200);
    const back = await call("PATCH", path, { token, body: { status: "active" } });
    expect(back.status).toBe(409);
    expect(back.body.error.code).toBe("CONFLICT");
    expect((await call("PATCH", path, { token, body: { name: "Still archived" } })).status).toBe(409);
    expect((await call("GET", path, { token })).body.data).toMatchObject({ status: "archived", name: "Renamed" });

    const invalid = await call("PATCH", path, { token, body: { status: "deleted" } });
    expect(invalid.status).toBe(422);
    expect((await call("PATCH", path, { token, body: {} })).status).toBe(422);
    expect((await call("PATCH", path, { token, body: { code: "NEW" } })).status).toBe(422);
  });

  it("cannot be created archived", async () => {
    expect((await create({ status: "archived" })).status).toBe(422);
  });
});
