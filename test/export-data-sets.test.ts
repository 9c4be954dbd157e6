import { buffer } from "node:stream/consumers";
import { parse } from "csv-parse/sync";
import { beforeAll, describe, expect, it } from "vitest";
import type { DataSetRequest } from "../shared/ports/exports";
import type { ExportFilters } from "../shared/domain/export-data";
import { Composition } from "../shared/composition";
import { parseConfig } from "../shared/config";
import { adminToken, call, cosmosEndpoint, uniqueCode } from "./http";
import {
  COSMOS_KEY,
  createPortfolio,
  createSecurities,
  holdingsOf,
  imported,
  listAll,
  securityRecord,
  whenValued,
  type PortfolioData,
} from "./investment-fixtures";
import { TEST_JWT_KEY, TEST_WEBHOOK_KEY } from "./runtime";

/** The service's own composition over the local runtime's Cosmos DB: what an export run reads with. */
function composition(): Composition {
  return new Composition(
    parseConfig({
      COSMOS_ENDPOINT: cosmosEndpoint(),
      COSMOS_KEY,
      COSMOS_ENDPOINT_DISCOVERY: "false",
      JWT_SIGNING_KEY: TEST_JWT_KEY,
      WEBHOOK_SECRET_KEY: TEST_WEBHOOK_KEY,
    }),
  );
}

describe("export data sets (the local runtime's Cosmos DB) agree with the API's GET answers", () => {
  let token: string;
  let services: Composition;
  const clientId = uniqueCode("export-client");
  const source = uniqueCode("export-src");
  let p1: PortfolioData;
  let p2: PortfolioData;
  let s: string[];

  const rows = async (
    dataType: DataSetRequest["dataType"],
    filters: ExportFilters = {},
    window?: DataSetRequest["window"],
  ): Promise<Record<string, unknown>[]> => {
    const out: Record<string, unknown>[] = [];
    for await (const r of services.exports.exportDataSets().open({ dataType, filters, ...(window ? { window } : {}) })
      .records)
      out.push(r);
    return out;
  };
  const get = async (path: string) => {
    const reply = await call("GET", path, { token });
    expect(reply.status, reply.text).toBe(200);
    return reply.body.data;
  };

  beforeAll(async () => {
    token = await adminToken();
    services = composition();
    const records = [securityRecord(), securityRecord(), securityRecord({ currency: "USD" }), securityRecord()];
    s = await createSecurities(token, records);
    p1 = await createPortfolio(token, { clientId, baseCurrency: "EUR", code: uniqueCode("EXA") });
    p2 = await createPortfolio(token, { clientId, baseCurrency: "USD", code: uniqueCode("EXB") });
    const isin = (i: number) => records[i]!.isin;
    await imported(token, "prices", {
      prices: [
        { isin: isin(0), date: "2024-01-02", price: 10, currency: "EUR", type: "close", source },
        { isin: isin(0), date: "2024-01-03", price: 10.5, currency: "EUR", type: "close", source },
        { isin: isin(1), date: "2024-01-03", price: 20.25, currency: "EUR", type: "close", source },
        { isin: isin(2), date: "2024-01-03", price: 30, currency: "USD", type: "close", source },
      ],
    });
    await imported(token, "fx-rates", {
      fxRates: [{ baseCurrency: "EUR", quoteCurrency: "USD", date: "2024-01-03", rate: 1.1, source }],
    });
    await imported(token, "positions", {
      positions: [
        { portfolioId: p1.id, securityId: s[0], date: "2024-01-03", quantity: 100, costBasis: 900, currency: "EUR" },
        { portfolioId: p1.id, securityId: s[1], date: "2024-01-03", quantity: 10 },
        { portfolioId: p1.id, securityId: s[3], date: "2024-01-03", quantity: 5 },
        { portfolioId: p2.id, securityId: s[2], date: "2024-01-03", quantity: 7 },
        { portfolioId: p2.id, securityId: s[0], date: "2024-01-03", quantity: 3 },
      ],
    });
    const tx = (
      externalId: string,
      portfolioId: string,
      securityId: string | undefined,
      tradeDate: string,
      status: string,
    ) => ({
      externalId,
      portfolioId,
      ...(securityId ? { securityId, quantity: 2, price: 10 } : { netAmount: 500 }),
      type: securityId ? "buy" : "deposit",
      status,
      tradeDate,
      currency: "EUR",
    });
    await imported(token, "transactions", {
      transactions: [
        tx(`${source}-1, "quoted"`, p1.id, s[0], "2024-01-02", "settled"),
        tx(`${source}-2`, p1.id, s[1], "2024-01-03", "pending"),
        tx(`${source}-3`, p1.id, undefined, "2024-01-04", "settled"),
        tx(`${source}-4`, p2.id, s[2], "2024-01-03", "settled"),
      ],
    });
    [p1, p2] = (await whenValued(token, p1.id, p2.id)) as [PortfolioData, PortfolioData];
  }, 60_000);

  it("portfolios: the records GET /portfolios answers, filtered by clientId, portfolioIds and status", async () => {
    expect(await rows("portfolios", { clientId })).toEqual(
      await listAll(token, `/api/v1/portfolios?clientId=${clientId}`),
    );
    expect(await rows("portfolios", { portfolioIds: [p2.id, "no-such-portfolio"] })).toEqual([
      await get(`/api/v1/portfolios/${p2.id}`),
    ]);
    expect(await rows("portfolios", { clientId, status: "inactive" })).toEqual([]);
  });

  it("holdings: each portfolio's latest valuation, one row per holding with the portfolio's id and code", async () => {
    const expected = [];
    for (const p of [p1, p2].sort((a, b) => (a.code < b.code ? -1 : 1))) {
      const view = await holdingsOf(token, p.id);
      expect(view.holdings.length).toBeGreaterThan(0);
      expected.push(
        ...view.holdings.map((h) => ({
          portfolioId: p.id,
          portfolioCode: p.code,
          date: view.date,
          baseCurrency: view.baseCurrency,
          ...h,
        })),
      );
    }
    expect(await rows("holdings", { clientId })).toEqual(expected);
    expect((await rows("holdings", { portfolioIds: [p1.id] })).map((r) => r.securityId)).toEqual(
      (await holdingsOf(token, p1.id)).holdings.map((h) => h.securityId),
    );
  });

  it("positions: as of each portfolio's latest valuation", async () => {
    const got = await rows("positions", { portfolioIds: [p1.id] });
    expect(p1.latestValuationDate).toBe("2024-01-03");
    const bySecurity = (a: Record<string, unknown>, b: Record<string, unknown>) =>
      String(a.securityId) < String(b.securityId) ? -1 : 1;
    expect([...got].sort(bySecurity)).toEqual(
      [
        {
          portfolioId: p1.id,
          portfolioCode: p1.code,
          date: "2024-01-03",
          securityId: s[0],
          quantity: 100,
          costBasis: 900,
          currency: "EUR",
        },
        {
          portfolioId: p1.id,
          portfolioCode: p1.code,
          date: "2024-01-03",
          securityId: s[1],
          quantity: 10,
          costBasis: null,
          currency: null,
        },
        {
          portfolioId: p1.id,
          portfolioCode: p1.code,
          date: "2024-01-03",
          securityId: s[3],
          quantity: 5,
          costBasis: null,
          currency: null,
        },
      ].sort(bySecurity),
    );
  });

  it("transactions: GET /transactions per portfolio, with the window on trade date and the status filter", async () => {
    const ordered = [p1, p2].sort((a, b) => (a.code < b.code ? -1 : 1));
    const expected = [];
    for (const p of ordered) expected.push(...(await listAll(token, `/api/v1/transactions?portfolioId=${p.id}`)));
    expect(expected).toHaveLength(4);
    expect(await rows("transactions", { clientId })).toEqual(expected);
    const windowed = [];
    for (const p of ordered)
      windowed.push(
        ...(await listAll(token, `/api/v1/transactions?portfolioId=${p.id}&from=2024-01-03&to=2024-01-03`)),
      );
    expect(await rows("transactions", { clientId }, { from: "2024-01-03", to: "2024-01-03" })).toEqual(windowed);
    expect((await rows("transactions", { portfolioIds: [p1.id], status: "settled" })).map((t) => t.externalId)).toEqual(
      [`${source}-1, "quoted"`, `${source}-3`],
    );
  });

  it("prices (window on the price date), securities, FX rates and exceptions: the records the API answers", async () => {
    const window = { from: "2024-01-03", to: "2024-01-03" };
    const prices = (await rows("prices", {}, window)).filter((r) => s.includes(String(r.securityId)));
    const expectedPrices = [];
    for (const id of [...s].sort())
      expectedPrices.push(...(await listAll(token, `/api/v1/securities/${id}/prices?from=2024-01-03&to=2024-01-03`)));
    expect(prices).toEqual(expectedPrices);
    expect(prices).toHaveLength(3);

    const securities = (await rows("securities")).filter((r) => s.includes(String(r.id)));
    expect(securities).toEqual(await Promise.all([...s].sort().map((id) => get(`/api/v1/securities/${id}`))));

    expect((await rows("fx-rates")).filter((r) => r.source === source)).toEqual([
      { baseCurrency: "EUR", quoteCurrency: "USD", date: "2024-01-03", rate: 1.1, source },
    ]);
    expect(
      (await rows("fx-rates", {}, { from: "2023-01-01", to: "2023-12-31" })).filter((r) => r.source === source),
    ).toEqual([]);

    const exceptions = (await rows("exceptions", { status: "open" })).filter(
      (e) => (e.entity as { id: string }).id === s[3],
    );
    expect(exceptions.length).toBeGreaterThan(0);
    for (const e of exceptions) expect(e).toEqual(await get(`/api/v1/exceptions/${String(e.id)}`));
  });

  it("a status the data type does not have is refused with the field named", async () => {
    await expect(rows("transactions", { status: "archived" })).rejects.toMatchObject({
      code: "VALIDATION_ERROR",
      details: [{ field: "filters.status" }],
    });
    await expect(rows("prices", { status: "open" })).rejects.toMatchObject({
      code: "VALIDATION_ERROR",
      details: [{ field: "filters.status" }],
    });
  });

  it("the CSV of a data set reads back as the GET answer (flattened, arrays as JSON text)", async () => {
    const dataSet = services.exports
      .exportDataSets()
      .open({ dataType: "transactions", filters: { portfolioIds: [p1.id] } });
    const csv = await buffer(
      services.exports.writeExport(
        "csv",
        { exportId: "ex_test", dataType: "transactions", generatedAt: new Date().toISOString() },
        dataSet,
      ).stream,
    );
    const [header, ...lines] = parse(csv);
    expect(header).toEqual(dataSet.columns);
    const expected = await listAll(token, `/api/v1/transactions?portfolioId=${p1.id}`);
    expect(lines).toHaveLength(expected.length);
    lines.forEach((line, i) => {
      const record = expected[i] as Record<string, unknown>;
      const cell = (column: string) => line[header!.indexOf(column)];
      expect(cell("id")).toBe(record.id);
      expect(cell("externalId")).toBe(record.externalId);
      expect(cell("netAmount")).toBe(String(record.netAmount));
      expect(cell("securityId")).toBe(record.securityId ?? "");
      expect(JSON.parse(cell("statusHistory")!)).toEqual(record.statusHistory);
    });
  });

  it("walks lists deeper than page numbers reach: every one of more than 10,000 securities, once", async () => {
    const isins = new Set<string>();
    for (let call = 0; call < 2; call++) {
      const batch = Array.from({ length: 5_001 }, () => securityRecord());
      for (const r of batch) isins.add(r.isin);
      await imported(token, "securities", { securities: batch });
    }
    const seen = new Map<string, number>();
    for (const row of await rows("securities")) seen.set(String(row["isin"]), (seen.get(String(row["isin"])) ?? 0) + 1);
    expect(seen.size).toBeGreaterThan(10_000);
    expect([...isins].filter((isin) => seen.get(isin) !== 1)).toEqual([]);
  }, 120_000);
});
