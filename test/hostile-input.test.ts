import { CosmosClient } from "@azure/cosmos";
import { SignJWT } from "jose";
import { connect } from "node:net";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { CosmosPositionRepository } from "../shared/adapters/cosmos/cosmos-position-repository";
import { adminToken, baseUrl, call } from "./http";
import {
  COSMOS_KEY,
  createPortfolio,
  createSecurities,
  exceptionsFor,
  holdingsOf,
  imported,
  importData,
  price,
  securityRecord,
  validationDetails,
  whenValued,
} from "./investment-fixtures";
import { TEST_AUDIENCE, TEST_ISSUER, TEST_JWT_KEY } from "./runtime";

let admin: string;
beforeAll(async () => {
  admin = await adminToken();
});

describe("malformed paths", () => {
  it("answers 400 INVALID_REQUEST, not 500, to malformed percent-encoding on an unknown route (no token)", async () => {
    const reply = await call("GET", "/api/v1/%ZZ");
    expect(reply.status, reply.text).toBe(400);
    expect(reply.body.error.code).toBe("INVALID_REQUEST");
  });

  // Every item route, with ids Cosmos DB refuses or a URL cannot carry as they are.
  const routes: [string, string, string, unknown?][] = [
    ["GET", "/api/v1/portfolios/{id}", "portfolioId"],
    ["PATCH", "/api/v1/portfolios/{id}", "portfolioId", { name: "x" }],
    ["GET", "/api/v1/portfolios/{id}/holdings", "portfolioId"],
    ["GET", "/api/v1/securities/{id}", "securityId"],
    ["GET", "/api/v1/securities/{id}/prices", "securityId"],
    ["GET", "/api/v1/jobs/{id}", "jobId"],
    ["GET", "/api/v1/exceptions/{id}", "exceptionId"],
    ["PATCH", "/api/v1/exceptions/{id}", "exceptionId", { status: "resolved" }],
    ["GET", "/api/v1/settings/api-clients/{id}", "clientId"],
    ["PATCH", "/api/v1/settings/api-clients/{id}", "clientId", { name: "x" }],
    ["POST", "/api/v1/settings/api-clients/{id}/rotate-secret", "clientId"],
  ];
  const badIds = ["%20", "a%20", "a%5Cb", "%23x", "a%3Fb", "a%2Fb", "%ZZ", "a%00b"];

  it.each(routes)(
    "%s %s answers 400 INVALID_REQUEST naming the id for every malformed id",
    async (method, template, field, body) => {
      for (const id of badIds) {
        const reply = await call(method, template.replace("{id}", id), {
          token: admin,
          ...(body !== undefined ? { body } : {}),
        });
        expect(reply.status, `${id}: ${reply.text}`).toBe(400);
        expect(reply.body.error.code).toBe("INVALID_REQUEST");
        // NUL (%00) is named as what no store can hold, the rest as what no id contains.
        expect(reply.body.error.details).toEqual([
          { field, message: expect.stringMatching(/not a valid id|which no store can hold/) },
        ]);
      }
    },
  );

  it("still finds nothing (404) for a well-formed unknown id", async () => {
    const reply = await call("GET", "/api/v1/portfolios/no-such-portfolio", { token: admin });
    expect(reply.status).toBe(404);
  });
});

describe("validly signed tokens with a bad sub", () => {
  const key = Buffer.from(TEST_JWT_KEY, "base64");
  const sign = (claims: Record<string, unknown>): Promise<string> => {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ scope: "api.read", ...claims })
      .setProtectedHeader({ alg: "HS256", kid: "test-1", typ: "JWT" })
      .setIssuer(TEST_ISSUER)
      .setAudience(TEST_AUDIENCE)
      .setIssuedAt(now)
      .setExpirationTime(now + 600)
      .sign(key);
  };

  it.each([
    ["a number", { sub: 42 }],
    ["an object", { sub: { id: "test-admin" } }],
    ["an array", { sub: ["test-admin"] }],
    ["missing", {}],
    ["empty", { sub: "" }],
  ])("answers 401 when sub is %s", async (_name, claims) => {
    const reply = await call("GET", "/api/v1/portfolios", { token: await sign(claims) });
    expect(reply.status, reply.text).toBe(401);
    expect(reply.body.error.code).toBe("UNAUTHORIZED");
  });
});

/** Sends raw bytes and reads the whole answer until the server closes the connection. */
function rawRequest(text: string): Promise<{ status: number; headers: string; body: string }> {
  const url = new URL(baseUrl());
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () => socket.write(text));
    const chunks: Buffer[] = [];
    socket.on("data", (c: Buffer) => chunks.push(c));
    socket.on("error", reject);
    socket.on("close", () => {
      const all = Buffer.concat(chunks).toString("utf8");
      const [head = "", body = ""] = all.split("\r\n\r\n");
      resolve({ status: Number(head.split(" ")[1]), headers: head, body });
    });
  });
}

describe("oversized request heads", () => {
  it("answers a 100 KB header with 431 and the error object", async () => {
    const reply = await rawRequest(
      `GET /api/v1/portfolios HTTP/1.1\r\nHost: localhost\r\nX-Big: ${"a".repeat(100 * 1024)}\r\nConnection: close\r\n\r\n`,
    );
    expect(reply.status).toBe(431);
    expect(reply.headers).toMatch(/content-type: application\/json/i);
    expect(JSON.parse(reply.body)).toEqual({
      error: { code: "REQUEST_HEADER_FIELDS_TOO_LARGE", message: expect.any(String), requestId: expect.any(String) },
    });
  });

  it("answers a 20 KB query string with 431 and the error object", async () => {
    const reply = await rawRequest(
      `GET /api/v1/portfolios?q=${"b".repeat(20 * 1024)} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`,
    );
    expect(reply.status).toBe(431);
    expect(JSON.parse(reply.body).error.code).toBe("REQUEST_HEADER_FIELDS_TOO_LARGE");
  });
});

describe("numbers bounded to what valuation can compute", () => {
  it("rejects quantity 1e307 with a 422 naming the field, and stores nothing", async () => {
    const portfolio = await createPortfolio(admin);
    const [securityId] = await createSecurities(admin, [securityRecord()]);
    const reply = await importData(admin, "positions", {
      positions: [{ portfolioId: portfolio.id, securityId, date: "2024-05-02", quantity: 1e307 }],
    });
    expect(validationDetails(reply)).toEqual([{ field: "positions[0].quantity", message: "must be at most 1e+12" }]);
    const holdings = await call("GET", `/api/v1/portfolios/${portfolio.id}/holdings`, { token: admin });
    expect(holdings.body.data.holdings).toEqual([]);
  });

  type Body = (portfolioId: string, securityId: string, isin: string) => unknown;
  it.each<[string, string, Body]>([
    [
      "positions",
      "positions[0].costBasis",
      (p, s) => ({ positions: [{ portfolioId: p, securityId: s, date: "2024-05-02", quantity: 1, costBasis: -1e16 }] }),
    ],
    [
      "prices",
      "prices[0].price",
      (_p, _s, isin) => ({
        prices: [{ isin, date: "2024-05-02", price: 1e300, currency: "EUR", type: "close", source: "t" }],
      }),
    ],
    [
      "fx-rates",
      "fxRates[0].rate",
      () => ({
        fxRates: [{ baseCurrency: "EUR", quoteCurrency: "USD", date: "2024-05-02", rate: 1e-300, source: "t" }],
      }),
    ],
    [
      "fx-rates",
      "fxRates[0].rate",
      () => ({
        fxRates: [{ baseCurrency: "EUR", quoteCurrency: "USD", date: "2024-05-02", rate: 1e300, source: "t" }],
      }),
    ],
    [
      "transactions",
      "transactions[0].fees",
      (p, s) => ({
        transactions: [
          {
            externalId: "x",
            portfolioId: p,
            securityId: s,
            type: "buy",
            tradeDate: "2024-05-02",
            quantity: 1,
            price: 1,
            fees: 1e300,
            currency: "EUR",
          },
        ],
      }),
    ],
    [
      "transactions",
      "transactions[0].grossAmount",
      (p, s) => ({
        transactions: [
          {
            externalId: "y",
            portfolioId: p,
            securityId: s,
            type: "buy",
            tradeDate: "2024-05-02",
            quantity: 1e12,
            price: 1e9,
            currency: "EUR",
          },
        ],
      }),
    ],
  ])("rejects an out-of-range %s number with 422 on %s", async (dataType, field, body) => {
    const portfolio = await createPortfolio(admin);
    const record = securityRecord();
    const [securityId] = await createSecurities(admin, [record]);
    const details = validationDetails(await importData(admin, dataType, body(portfolio.id, securityId, record.isin)));
    expect(details.map((d) => d.field)).toContain(field);
  });
});

describe("one bad stored record poisons nothing", () => {
  it("values the rest of a portfolio whose stored position is out of range, answers 200 to imports touching it, and opens VALUE_OUT_OF_RANGE", async () => {
    const portfolio = await createPortfolio(admin);
    const huge = securityRecord();
    const ok = securityRecord();
    const [hugeId, okId] = await createSecurities(admin, [huge, ok]);
    const date = "2018-06-01";
    await imported(admin, "prices", { prices: [price(huge.isin, date, 100), price(ok.isin, date, 10)] });
    // Data stored before input bounds existed: written straight to the store, past validation.
    const client = new CosmosClient({
      endpoint: inject("cosmosEndpoint"),
      key: COSMOS_KEY,
      connectionPolicy: { enableEndpointDiscovery: false },
    });
    const positions = new CosmosPositionRepository(client.database("investment-data").container("positions"));
    await positions.saveSnapshots([
      {
        portfolioId: portfolio.id,
        date,
        positions: [
          { securityId: hugeId, quantity: 1e307, costBasis: null, currency: null },
          { securityId: okId, quantity: 3, costBasis: null, currency: null },
        ],
        currencies: ["EUR"],
        updatedAt: new Date().toISOString(),
      },
    ]);
    client.dispose();

    // A price import touching that security and date revalues the portfolio: 200, not 500.
    await imported(admin, "prices", {
      prices: [
        price(huge.isin, date, 101, { source: "other-feed" }),
        price(ok.isin, date, 11, { source: "other-feed" }),
      ],
    });
    await whenValued(admin, portfolio.id);
    const view = await holdingsOf(admin, portfolio.id, `date=${date}`);
    // Same date, two sources: "other-feed" sorts first, so 3 × 11.
    expect(view.totalValue).toBe(33);
    expect(view.holdings.map((h) => [h.securityId, h.marketValue])).toEqual([
      [okId, 33],
      [hugeId, null],
    ]);
    const exceptions = await exceptionsFor(admin, "VALUE_OUT_OF_RANGE", portfolio.id);
    expect(exceptions).toEqual([
      expect.objectContaining({
        type: "VALUE_OUT_OF_RANGE",
        severity: "error",
        status: "open",
        message: expect.stringContaining(hugeId),
      }),
    ]);
  });
});
