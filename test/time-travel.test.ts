import { beforeAll, describe, expect, it, vi } from "vitest";
import { adminToken, call, newClient, uniqueCode, type Reply } from "./http";
import {
  createPortfolio,
  eventsWhere,
  imported,
  securityRecord,
  whenValued,
  type PortfolioData,
} from "./investment-fixtures";

/** GET as a client would, expecting 200; the whole answer (data, pagination, headers). */
async function read(token: string, path: string): Promise<Reply> {
  const reply = await call("GET", path, { token });
  expect(reply.status, `${path}: ${reply.text}`).toBe(200);
  return reply;
}

const withAsAt = (path: string, asAt: string): string =>
  `${path}${path.includes("?") ? "&" : "?"}asAt=${encodeURIComponent(asAt)}`;

/** An instant strictly after everything written so far (the service records versions in milliseconds). */
async function instant(): Promise<string> {
  await new Promise((r) => setTimeout(r, 5));
  const at = new Date().toISOString();
  await new Promise((r) => setTimeout(r, 5));
  return at;
}

describe("Time travel: as an API consumer, every read as the service knew it at an instant", () => {
  let token: string;
  const clientId = uniqueCode("client");
  const ids = { p1: "", p2: "", fund: "", a: "", b: "", fundShare: "", t1: "", t2: "" };
  const isins = { a: "", b: "", fundShare: "" };
  /** The reads a consumer made at T1, and what they answered. */
  const captured = new Map<string, Reply>();
  let T1 = "";
  let T0 = "";

  const reads = (): string[] => [
    `/api/v1/portfolios/${ids.p1}`,
    `/api/v1/portfolios/${ids.p2}`,
    `/api/v1/portfolios?clientId=${clientId}`,
    `/api/v1/portfolios?clientId=${clientId}&pageSize=1&page=2`,
    `/api/v1/portfolios?clientId=${clientId}&status=active&currency=EUR`,
    `/api/v1/portfolios/${ids.p1}/holdings`,
    `/api/v1/portfolios/${ids.p2}/holdings?date=2024-03-28`,
    `/api/v1/portfolios/${ids.p1}/holdings?date=2024-03-29&lookThrough=true`,
    `/api/v1/securities/${ids.a}`,
    `/api/v1/securities/${isins.b}`,
    `/api/v1/securities?isin=${isins.a}`,
    `/api/v1/securities/${ids.a}/prices`,
    `/api/v1/securities/${isins.a}/prices?pageSize=1`,
    `/api/v1/securities/${ids.a}/prices?type=close&from=2024-03-28&to=2024-03-28`,
    `/api/v1/transactions?portfolioId=${ids.p1}`,
    `/api/v1/transactions?portfolioId=${ids.p1}&status=pending`,
    `/api/v1/transactions?portfolioId=${ids.p1}&pageSize=1`,
    `/api/v1/transactions/${ids.t1}`,
    `/api/v1/fx-rates?baseCurrency=EUR&quoteCurrency=JPY&from=1987-01-01&to=1987-12-31`,
    `/api/v1/fx-rates?from=1987-01-01&to=1987-12-31&pageSize=1`,
  ];

  beforeAll(async () => {
    token = await adminToken();
    T0 = await instant();
    const fund = await createPortfolio(token, { type: "fund", baseCurrency: "EUR", clientId });
    const [p1, p2] = [
      await createPortfolio(token, { baseCurrency: "EUR", clientId }),
      await createPortfolio(token, { baseCurrency: "EUR", clientId }),
    ];
    const a = securityRecord({ currency: "USD" });
    const b = securityRecord({ currency: "EUR" });
    const share = securityRecord({ currency: "EUR", assetClass: "fund", lookThroughPortfolioId: fund.id });
    await imported(token, "securities", { securities: [a, b, share] });
    Object.assign(ids, { p1: p1.id, p2: p2.id, fund: fund.id, a: `sec_${a.isin}`, b: `sec_${b.isin}` });
    Object.assign(ids, { fundShare: `sec_${share.isin}` });
    Object.assign(isins, { a: a.isin, b: b.isin, fundShare: share.isin });
    const fx = (date: string, rate: number, quoteCurrency = "USD") => ({
      baseCurrency: "EUR",
      quoteCurrency,
      date,
      rate,
      source: "ECB",
    });
    await imported(token, "fx-rates", {
      fxRates: [fx("2024-03-28", 1.08), fx("1987-03-02", 144.2, "JPY"), fx("1987-03-03", 145.1, "JPY")],
    });
    const price = (isin: string, date: string, value: number, currency: string) => ({
      isin,
      date,
      price: value,
      currency,
      type: "close",
      source: "Bloomberg",
    });
    await imported(token, "prices", {
      prices: [
        price(a.isin, "2024-03-28", 171.48, "USD"),
        price(a.isin, "2024-03-27", 170.0, "USD"),
        price(b.isin, "2024-03-28", 180.5, "EUR"),
        price(share.isin, "2024-03-28", 10, "EUR"),
      ],
    });
    const position = (portfolioId: string, isin: string, date: string, quantity: number) => ({
      portfolioId,
      isin,
      date,
      quantity,
    });
    await imported(token, "positions", {
      positions: [
        position(p1.id, a.isin, "2024-03-28", 100),
        position(p1.id, share.isin, "2024-03-28", 50),
        position(p2.id, a.isin, "2024-03-28", 10),
        position(p2.id, b.isin, "2024-03-28", 20),
        position(fund.id, b.isin, "2024-03-28", 5),
      ],
    });
    const trade = (externalId: string, quantity: number) => ({
      externalId,
      portfolioId: p1.id,
      isin: a.isin,
      type: "buy",
      status: "pending",
      tradeDate: "2024-03-26",
      settlementDate: "2024-03-28",
      quantity,
      price: 170,
      fees: 5,
      currency: "USD",
    });
    await imported(token, "transactions", { transactions: [trade("T-1", 100), trade("T-2", 10)] });
    const listed = await read(token, `/api/v1/transactions?portfolioId=${p1.id}`);
    const byExternal = new Map(
      (listed.body.data as { id: string; externalId: string }[]).map((t) => [t.externalId, t.id]),
    );
    Object.assign(ids, { t1: byExternal.get("T-1") ?? "", t2: byExternal.get("T-2") ?? "" });
    await whenValued(token, p1.id, p2.id, fund.id);

    // What a consumer read at T1.
    for (const path of reads()) captured.set(path, await read(token, path));
    T1 = await instant();
    // Nothing of ours changed while it read (the answers are what the service answered at T1).
    for (const path of reads()) expect((await read(token, path)).body, path).toEqual(captured.get(path)?.body);

    // The corrections: a restated price (and a revaluation), an amended and a settled transaction, a renamed
    // portfolio, a snapshot that shrinks, a corrected FX rate, a new security and a new portfolio.
    await imported(token, "prices", { prices: [price(a.isin, "2024-03-28", 172.8, "USD")] });
    await imported(token, "transactions", {
      transactions: [
        { ...trade("T-1", 100), fees: 7 },
        { ...trade("T-2", 10), status: "settled" },
      ],
    });
    const renamed = await call("PATCH", `/api/v1/portfolios/${p1.id}`, { token, body: { name: "Renamed" } });
    expect(renamed.status, renamed.text).toBe(200);
    await imported(token, "positions", { positions: [position(p2.id, a.isin, "2024-03-28", 10)] });
    await imported(token, "positions", { positions: [position(p1.id, a.isin, "2024-03-29", 100)] });
    await imported(token, "fx-rates", { fxRates: [fx("1987-03-02", 144.25, "JPY"), fx("1987-03-04", 146, "JPY")] });
    await createPortfolio(token, { baseCurrency: "EUR", clientId });
    await whenValued(token, p1.id, p2.id);
  }, 120_000);

  it("each read with asAt=T1 answers exactly what it answered at T1: records, values, order, pagination, totals, holdings", async () => {
    for (const path of reads()) {
      const then = captured.get(path) as Reply;
      const now = await read(token, withAsAt(path, T1));
      expect(now.body, path).toEqual(then.body);
      expect(now.headers.get("x-as-at"), path).toBe(T1);
    }
    // The corrections did change the current answers (so the comparison above could have failed).
    const portfolio = (await read(token, `/api/v1/portfolios/${ids.p1}`)).body.data as PortfolioData;
    const portfolioThen = captured.get(`/api/v1/portfolios/${ids.p1}`)?.body.data as PortfolioData;
    expect(portfolio.name).toBe("Renamed");
    expect(portfolio.totalValue).not.toBe(portfolioThen.totalValue);
    const holdingsNow = (await read(token, `/api/v1/portfolios/${ids.p2}/holdings?date=2024-03-28`)).body.data;
    expect(holdingsNow.holdings).toHaveLength(1);
    expect(captured.get(`/api/v1/portfolios/${ids.p2}/holdings?date=2024-03-28`)?.body.data.holdings).toHaveLength(2);
    const listNow = (await read(token, `/api/v1/portfolios?clientId=${clientId}`)).body;
    expect(listNow.pagination.totalItems).toBe(4);
    expect(captured.get(`/api/v1/portfolios?clientId=${clientId}`)?.body.pagination.totalItems).toBe(3);
    const t1Now = (await read(token, `/api/v1/transactions/${ids.t1}`)).body.data;
    expect(t1Now.fees).toBe(7);
  });

  it("a cursor from a page read with asAt continues the same list as it was then", async () => {
    const first = await read(token, withAsAt(`/api/v1/transactions?portfolioId=${ids.p1}&pageSize=1`, T1));
    const cursor = first.body.pagination.nextCursor as string;
    expect(cursor).toEqual(expect.any(String));
    const second = await read(
      token,
      withAsAt(`/api/v1/transactions?portfolioId=${ids.p1}&pageSize=1&cursor=${encodeURIComponent(cursor)}`, T1),
    );
    const all = captured.get(`/api/v1/transactions?portfolioId=${ids.p1}`)?.body.data as unknown[];
    expect([...first.body.data, ...second.body.data]).toEqual(all);
    expect(second.body.pagination.nextCursor).toBeNull();
  });

  it("before a record existed it is 404 on a single read and absent from lists", async () => {
    expect((await call("GET", withAsAt(`/api/v1/portfolios/${ids.p1}`, T0), { token })).status).toBe(404);
    expect((await call("GET", withAsAt(`/api/v1/securities/${ids.a}`, T0), { token })).status).toBe(404);
    expect((await call("GET", withAsAt(`/api/v1/securities/${isins.a}`, T0), { token })).status).toBe(404);
    expect((await call("GET", withAsAt(`/api/v1/transactions/${ids.t1}`, T0), { token })).status).toBe(404);
    expect((await call("GET", withAsAt(`/api/v1/portfolios/${ids.p1}/holdings`, T0), { token })).status).toBe(404);
    const list = await read(token, withAsAt(`/api/v1/portfolios?clientId=${clientId}`, T0));
    expect(list.body).toEqual({ data: [], pagination: { page: 1, pageSize: 50, totalItems: 0, totalPages: 0 } });
  });

  it("asAt malformed, without a zone or in the future is 400 INVALID_REQUEST naming asAt; an offset is accepted", async () => {
    const future = new Date(Date.now() + 3_600_000).toISOString();
    for (const bad of ["yesterday", "2024-03-28", "2024-03-28T10:00:00", future]) {
      const reply = await call("GET", withAsAt(`/api/v1/portfolios/${ids.p1}`, bad), { token });
      expect(reply.status, bad).toBe(400);
      expect(reply.body.error.code).toBe("INVALID_REQUEST");
      expect(reply.body.error.details.map((d: { field: string }) => d.field)).toEqual(["asAt"]);
    }
    // The same instant written with an offset: the same answer, X-As-At in UTC.
    const t = new Date(T1);
    const offset = new Date(t.getTime() + 2 * 3_600_000).toISOString().replace("Z", "+02:00");
    const reply = await read(token, withAsAt(`/api/v1/portfolios/${ids.p1}`, offset));
    expect(reply.headers.get("x-as-at")).toBe(T1);
    expect(reply.body).toEqual(captured.get(`/api/v1/portfolios/${ids.p1}`)?.body);
    // Without asAt: no X-As-At.
    expect((await read(token, `/api/v1/portfolios/${ids.p1}`)).headers.get("x-as-at")).toBeNull();
  });
});

describe("Time travel: as an auditor, every change says who made it, when and through what", () => {
  let admin: string;
  let writer: { clientId: string; token: string };

  beforeAll(async () => {
    admin = await adminToken();
    writer = await newClient(admin, ["api.read", "api.write"]);
  });

  it("a portfolio's history: newest first, cursor paged, each entry the portfolio as it read right after that version", async () => {
    const portfolio = await createPortfolio(writer.token, { baseCurrency: "EUR" });
    const security = securityRecord();
    await imported(writer.token, "securities", { securities: [security] });
    await imported(writer.token, "prices", {
      prices: [{ isin: security.isin, date: "2024-05-02", price: 12.5, currency: "EUR", type: "close", source: "X" }],
    });
    const positions = await imported(writer.token, "positions", {
      positions: [{ portfolioId: portfolio.id, isin: security.isin, date: "2024-05-02", quantity: 4 }],
    });
    await whenValued(writer.token, portfolio.id);
    const patch = await call("PATCH", `/api/v1/portfolios/${portfolio.id}`, {
      token: writer.token,
      body: { name: "Audited" },
      headers: { "X-Request-Id": "audit-rename-1" },
    });
    expect(patch.status, patch.text).toBe(200);
    // A change that changes nothing records nothing.
    await call("PATCH", `/api/v1/portfolios/${portfolio.id}`, { token: writer.token, body: { name: "Audited" } });

    const history = (await read(writer.token, `/api/v1/portfolios/${portfolio.id}/history`)).body;
    const entries = history.data as {
      version: number;
      recordedAt: string;
      recordedBy: string;
      requestId: string | null;
      jobId: string | null;
      change: string;
      record: PortfolioData;
    }[];
    expect(entries.map((e) => e.version)).toEqual(entries.map((_, i) => entries.length - i));
    expect(history.pagination.totalItems).toBe(entries.length);
    const [renamed] = entries;
    expect(renamed).toMatchObject({
      recordedBy: writer.clientId,
      requestId: "audit-rename-1",
      jobId: null,
      change: "updated",
      record: { name: "Audited" },
    });
    expect(entries.at(-1)).toMatchObject({ version: 1, recordedBy: writer.clientId, change: "created" });
    // The import flagged it pending in place (no version of its own: the snapshot's version records the
    // writer's change); valuation recorded the total (system, same job) while still pending, then cleared it.
    expect(entries.filter((e) => e.recordedBy === writer.clientId).map((e) => e.change)).toEqual([
      "updated",
      "created",
    ]);
    expect(entries).toContainEqual(
      expect.objectContaining({
        recordedBy: "system",
        jobId: positions.jobId,
        record: expect.objectContaining({ totalValue: 50, valuationStatus: "pending" }),
      }),
    );
    expect(entries).toContainEqual(
      expect.objectContaining({
        recordedBy: "system",
        record: expect.objectContaining({ totalValue: 50, valuationStatus: "current" }),
      }),
    );
    // Newest first, and each record is what the single read answered as at that version's instant.
    for (const [i, e] of entries.entries()) {
      if (i > 0) expect(e.recordedAt < (entries[i - 1]?.recordedAt ?? "")).toBe(true);
      const single = await read(writer.token, withAsAt(`/api/v1/portfolios/${portfolio.id}`, e.recordedAt));
      expect(single.body.data, `version ${e.version}`).toEqual(e.record);
    }
    // A cursor walks the same entries one by one.
    const walked: unknown[] = [];
    let path = `/api/v1/portfolios/${portfolio.id}/history?pageSize=1`;
    for (let n = 0; n < 50; n++) {
      const page = (await read(writer.token, path)).body;
      walked.push(...page.data);
      if (page.pagination.nextCursor === null) break;
      path = `/api/v1/portfolios/${portfolio.id}/history?pageSize=1&cursor=${encodeURIComponent(page.pagination.nextCursor)}`;
    }
    expect(walked).toEqual(entries);
  });

  it("a price's, a security's and a transaction's history; unchanged re-imports record nothing; unknown records are 404", async () => {
    const security = securityRecord({ ticker: "OLD" });
    const id = `sec_${security.isin}`;
    await imported(writer.token, "securities", { securities: [security] });
    await imported(writer.token, "securities", { securities: [security] });
    await imported(writer.token, "securities", { securities: [{ ...security, ticker: "NEW" }] });
    const price = (value: number, source = "Vendor") => ({
      isin: security.isin,
      date: "2024-06-03",
      price: value,
      currency: "EUR",
      type: "close",
      source,
    });
    const first = await imported(writer.token, "prices", { prices: [price(10)] });
    await imported(writer.token, "prices", { prices: [price(10)] });
    const restated = await imported(writer.token, "prices", { prices: [price(10.5)] });
    await imported(writer.token, "prices", { prices: [price(9, "Other")] });

    const securityHistory = (await read(writer.token, `/api/v1/securities/${security.isin}/history`)).body;
    expect(
      securityHistory.data.map((e: { version: number; record: { ticker: string } }) => [e.version, e.record.ticker]),
    ).toEqual([
      [2, "NEW"],
      [1, "OLD"],
    ]);

    const prices = (
      await read(writer.token, `/api/v1/securities/${id}/prices/history?date=2024-06-03&type=close&source=Vendor`)
    ).body;
    expect(prices.data).toMatchObject([
      { version: 2, change: "updated", jobId: restated.jobId, recordedBy: writer.clientId, record: { price: 10.5 } },
      { version: 1, change: "created", jobId: first.jobId, recordedBy: writer.clientId, record: { price: 10 } },
    ]);
    // Without source: every source of that date and type, newest first.
    const all = (await read(writer.token, `/api/v1/securities/${id}/prices/history?date=2024-06-03&type=close`)).body;
    expect(
      all.data.map((e: { record: { source: string; price: number } }) => [e.record.source, e.record.price]),
    ).toEqual([
      ["Other", 9],
      ["Vendor", 10.5],
      ["Vendor", 10],
    ]);
    expect(all.pagination.totalItems).toBe(3);
    expect(
      (await call("GET", `/api/v1/securities/${id}/prices/history?date=2024-06-04&type=close`, { token: writer.token }))
        .status,
    ).toBe(404);
    expect(
      (await call("GET", `/api/v1/securities/${id}/prices/history?type=close`, { token: writer.token })).status,
    ).toBe(400);

    const portfolio = await createPortfolio(writer.token, { baseCurrency: "EUR" });
    const trade = {
      externalId: uniqueCode("T"),
      portfolioId: portfolio.id,
      isin: security.isin,
      type: "buy",
      status: "pending",
      tradeDate: "2024-06-03",
      quantity: 1,
      price: 10,
      currency: "EUR",
    };
    await imported(writer.token, "transactions", { transactions: [trade] });
    await imported(writer.token, "transactions", { transactions: [{ ...trade, status: "settled" }] });
    const txn = (await read(writer.token, `/api/v1/transactions?portfolioId=${portfolio.id}`)).body.data[0];
    const txnHistory = (await read(writer.token, `/api/v1/transactions/${txn.id}/history`)).body;
    expect(
      txnHistory.data.map((e: { version: number; record: { status: string } }) => [e.version, e.record.status]),
    ).toEqual([
      [2, "settled"],
      [1, "pending"],
    ]);
    expect((await read(writer.token, `/api/v1/transactions/${txn.id}`)).body.data).toEqual(txnHistory.data[0].record);

    for (const path of [
      "/api/v1/portfolios/no-such-portfolio/history",
      "/api/v1/securities/no-such-security/history",
      "/api/v1/transactions/txn_nonexistent/history",
      "/api/v1/transactions/txn_nonexistent",
    ]) {
      const reply = await call("GET", path, { token: writer.token });
      expect(reply.status, path).toBe(404);
      expect(reply.body.error.code).toBe("NOT_FOUND");
    }
  });
});

describe("Time travel: events carry their instant", () => {
  it("portfolio.valued and transaction.settled carry asAt; reading with it shows what the event announced", async () => {
    const token = await adminToken();
    const portfolio = await createPortfolio(token, { baseCurrency: "EUR" });
    const security = securityRecord();
    await imported(token, "securities", { securities: [security] });
    const price = (value: number) => ({
      isin: security.isin,
      date: "2024-07-01",
      price: value,
      currency: "EUR",
      type: "close",
      source: "X",
    });
    await imported(token, "prices", { prices: [price(3)] });
    await imported(token, "positions", {
      positions: [{ portfolioId: portfolio.id, isin: security.isin, date: "2024-07-01", quantity: 10 }],
    });
    await whenValued(token, portfolio.id);
    await imported(token, "prices", { prices: [price(4)] });
    await whenValued(token, portfolio.id);
    const trade = {
      externalId: uniqueCode("T"),
      portfolioId: portfolio.id,
      isin: security.isin,
      type: "buy",
      status: "settled",
      tradeDate: "2024-07-01",
      quantity: 1,
      price: 4,
      currency: "EUR",
    };
    await imported(token, "transactions", { transactions: [trade] });
    // The trade is amended after it settled: the event still describes the settled version it announced.
    await imported(token, "transactions", { transactions: [{ ...trade, fees: 1 }] });

    const valued = await vi.waitFor(
      async () => {
        const events = await eventsWhere("portfolio.valued", (d) => d.portfolioId === portfolio.id);
        expect(new Set(events.map((e) => e.data.totalValue))).toEqual(new Set([30, 40]));
        return events;
      },
      { timeout: 30_000, interval: 250 },
    );
    for (const event of valued) {
      const asAt = event.data.asAt as string;
      expect(asAt).toEqual(expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/));
      const then = (await read(token, withAsAt(`/api/v1/portfolios/${portfolio.id}`, asAt))).body.data;
      expect([then.totalValue, then.latestValuationDate]).toEqual([event.data.totalValue, event.data.valuationDate]);
      const holdings = (
        await read(token, withAsAt(`/api/v1/portfolios/${portfolio.id}/holdings?date=2024-07-01`, asAt))
      ).body.data;
      expect(holdings.totalValue).toBe(event.data.totalValue);
    }

    const [settled] = await eventsWhere("transaction.settled", (d) => d.portfolioId === portfolio.id);
    expect(settled).toBeDefined();
    const asAt = settled?.data.asAt as string;
    const then = (await read(token, withAsAt(`/api/v1/transactions/${settled?.data.transactionId as string}`, asAt)))
      .body.data;
    expect({ status: then.status, netAmount: then.netAmount, quantity: then.quantity }).toEqual({
      status: "settled",
      netAmount: settled?.data.netAmount,
      quantity: settled?.data.quantity,
    });
    const now = (await read(token, `/api/v1/transactions/${settled?.data.transactionId as string}`)).body.data;
    expect(now.netAmount).not.toBe(then.netAmount);
  }, 90_000);
});

describe("The two reads the spec implies", () => {
  it("GET /api/v1/fx-rates filters by pair and date and pages by number or cursor; GET /api/v1/transactions/{id} reads one", async () => {
    const token = await adminToken();
    const rates = ["1986-01-02", "1986-01-03", "1986-01-06"].map((date, i) => ({
      baseCurrency: "GBP",
      quoteCurrency: "CHF",
      date,
      rate: 2.5 + i / 100,
      source: "BoE",
    }));
    await imported(token, "fx-rates", {
      fxRates: [...rates, { baseCurrency: "CHF", quoteCurrency: "GBP", date: "1986-01-02", rate: 0.4, source: "BoE" }],
    });
    const listed = await read(
      token,
      "/api/v1/fx-rates?baseCurrency=GBP&quoteCurrency=CHF&from=1986-01-01&to=1986-01-31",
    );
    expect(listed.body.data).toEqual(rates);
    expect(listed.body.pagination).toMatchObject({ page: 1, totalItems: 3, totalPages: 1, nextCursor: null });
    const first = await read(token, "/api/v1/fx-rates?quoteCurrency=CHF&from=1986-01-03&to=1986-01-31&pageSize=1");
    expect(first.body.data).toEqual([rates[1]]);
    const next = await read(
      token,
      `/api/v1/fx-rates?quoteCurrency=CHF&from=1986-01-03&to=1986-01-31&pageSize=1&cursor=${encodeURIComponent(first.body.pagination.nextCursor)}`,
    );
    expect(next.body.data).toEqual([rates[2]]);
    const bad = await call("GET", "/api/v1/fx-rates?baseCurrency=gbp", { token });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0].field).toBe("baseCurrency");
  });
});
