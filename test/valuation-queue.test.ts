import { CosmosClient } from "@azure/cosmos";
import { beforeAll, describe, expect, it } from "vitest";
import { CosmosPortfolioRepository } from "../shared/adapters/cosmos/cosmos-portfolio-repository";
import { CosmosPositionRepository } from "../shared/adapters/cosmos/cosmos-position-repository";
import { adminToken, call, cosmosEndpoint, useOwnRuntime } from "./http";
import {
  COSMOS_KEY,
  createPortfolio,
  createSecurities,
  eventsWhere,
  getPortfolio,
  holdingsOf,
  imported,
  price,
  securityRecord,
  valuedPortfolio,
  whenValued,
} from "./investment-fixtures";

// Valuation messages wait 2 s on the queue (so a test sees `pending` deterministically after an
// import); the sweep runs every second and re-enqueues markers older than 3 s.
useOwnRuntime({
  VALUATION_DELAY_SECONDS: "2",
  VALUATION_SWEEP_SCHEDULE: "* * * * * *",
  VALUATION_SWEEP_AGE_SECONDS: "3",
});

describe("valuation on the valuations queue", () => {
  let token: string;
  beforeAll(async () => {
    token = await adminToken();
  });

  it("an import answers with the portfolio pending; it becomes current with the right totals, in GET one and the list", async () => {
    const D = "2024-11-04";
    const portfolio = await createPortfolio(token);
    expect(portfolio.valuationStatus).toBe("current");
    const [a, b] = [securityRecord(), securityRecord()];
    const [aId, bId] = await createSecurities(token, [a, b]);
    await imported(token, "prices", { prices: [price(a.isin, D, 12.5), price(b.isin, D, 3.1)] });
    await imported(token, "positions", {
      positions: [
        { portfolioId: portfolio.id, securityId: aId, date: D, quantity: 8 },
        { portfolioId: portfolio.id, securityId: bId, date: D, quantity: 10 },
      ],
    });
    // Answered before any valuation: pending, nothing valued yet.
    expect(await getPortfolio(token, portfolio.id)).toMatchObject({
      valuationStatus: "pending",
      totalValue: null,
      latestValuationDate: null,
    });
    const listed = await call("GET", `/api/v1/portfolios?clientId=investment-tests&pageSize=100`, { token });
    expect(listed.body.data.find((p: { id: string }) => p.id === portfolio.id)).toMatchObject({
      valuationStatus: "pending",
    });

    // 8 × 12.50 = 100.00; 10 × 3.10 = 31.00; total 131.00
    expect(await valuedPortfolio(token, portfolio.id)).toMatchObject({
      valuationStatus: "current",
      totalValue: 131,
      latestValuationDate: D,
    });
    expect((await holdingsOf(token, portfolio.id)).totalValue).toBe(131);
    const again = await call("GET", `/api/v1/portfolios?clientId=investment-tests&pageSize=100`, { token });
    expect(again.body.data.find((p: { id: string }) => p.id === portfolio.id)).toMatchObject({
      valuationStatus: "current",
      totalValue: 131,
    });
    expect(
      (await eventsWhere("portfolio.valued", (d) => d.portfolioId === portfolio.id)).map((e) => e.data.totalValue),
    ).toEqual([131]);
  });

  it("imports of the same portfolio-date within the delay coalesce: one marker, valued once from the latest data", async () => {
    const D = "2024-11-05";
    const portfolio = await createPortfolio(token);
    const sec = securityRecord();
    const [secId] = await createSecurities(token, [sec]);
    await imported(token, "prices", { prices: [price(sec.isin, D, 2)] });
    for (const quantity of [1, 2, 3])
      await imported(token, "positions", {
        positions: [{ portfolioId: portfolio.id, securityId: secId, date: D, quantity }],
      });
    const client = new CosmosClient({
      endpoint: cosmosEndpoint(),
      key: COSMOS_KEY,
      connectionPolicy: { enableEndpointDiscovery: false },
    });
    const markers = await new CosmosPositionRepository(
      client.database("investment-data").container("positions"),
    ).staleMarkers(portfolio.id, 10);
    client.dispose();
    expect(markers.map((m) => m.date)).toEqual([D]);
    expect(await valuedPortfolio(token, portfolio.id)).toMatchObject({ totalValue: 6 });
    expect(
      (await eventsWhere("portfolio.valued", (d) => d.portfolioId === portfolio.id)).map((e) => e.data.totalValue),
    ).toEqual([6]);
  });

  it("a stale marker whose message was lost is re-enqueued by the sweep once it is older than the sweep age", async () => {
    const D = "2024-11-06";
    const portfolio = await createPortfolio(token);
    const sec = securityRecord();
    const [secId] = await createSecurities(token, [sec]);
    await imported(token, "prices", { prices: [price(sec.isin, D, 5)] });
    // Data and marker stored by a process that crashed before sending the message: written straight to the store.
    const client = new CosmosClient({
      endpoint: cosmosEndpoint(),
      key: COSMOS_KEY,
      connectionPolicy: { enableEndpointDiscovery: false },
    });
    const positions = new CosmosPositionRepository(client.database("investment-data").container("positions"));
    await positions.markStale([{ portfolioId: portfolio.id, date: D }], {
      markedAt: new Date().toISOString(),
      jobId: null,
      writing: false,
    });
    await new CosmosPortfolioRepository(
      client.database("investment-data").container("portfolios"),
    ).markValuationPending([portfolio.id]);
    await positions.saveSnapshots([
      {
        portfolioId: portfolio.id,
        date: D,
        positions: [{ securityId: secId, quantity: 4, costBasis: null, currency: null }],
        currencies: ["EUR"],
        updatedAt: new Date().toISOString(),
      },
    ]);
    client.dispose();
    expect((await getPortfolio(token, portfolio.id)).valuationStatus).toBe("pending");
    const [valued] = await whenValued(token, portfolio.id);
    expect(valued).toMatchObject({ valuationStatus: "current", totalValue: 20, latestValuationDate: D });
  });

  it("a new composite is created pending and valued on its members' latest date", async () => {
    const D = "2024-11-07";
    const member = await createPortfolio(token);
    const sec = securityRecord();
    const [secId] = await createSecurities(token, [sec]);
    await imported(token, "prices", { prices: [price(sec.isin, D, 7)] });
    await imported(token, "positions", {
      positions: [{ portfolioId: member.id, securityId: secId, date: D, quantity: 3 }],
    });
    await whenValued(token, member.id);
    const composite = await createPortfolio(token, { type: "composite", memberIds: [member.id] });
    expect(composite.valuationStatus).toBe("pending");
    expect(await valuedPortfolio(token, composite.id)).toMatchObject({ totalValue: 21, latestValuationDate: D });

    // The OpenAPI document shows the field on the Portfolio schema.
    const openapi = (await call("GET", "/api/v1/openapi.json")).body;
    expect(openapi.components.schemas.Portfolio.properties.valuationStatus.enum).toEqual(["current", "pending"]);
    expect(openapi.components.schemas.Portfolio.required).toContain("valuationStatus");
  });
});
