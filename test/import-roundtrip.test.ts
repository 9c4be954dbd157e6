import { beforeAll, describe, expect, it } from "vitest";
import { adminToken, call, useOwnRuntime } from "./http";
import {
  createPortfolio,
  createSecurities,
  holdingsOf,
  whenValued,
  imported,
  listAll,
  newIsin,
  price,
  securityRecord,
  uid,
} from "./investment-fixtures";

useOwnRuntime();

// Each data type: import, read back through its endpoint, and the same payload a second time
// changes nothing (created 0, updated 0, unchanged N, stored data identical).
// Dates: 2014 (positions/prices/transactions), 2099 (FX, so no other test's valuation sees them).
describe("import round trip", () => {
  let token: string;
  beforeAll(async () => {
    token = await adminToken();
  });

  it("securities: every field is stored and read back by id and by ISIN; a re-import is unchanged", async () => {
    const tag = uid("Sec");
    const withAll = {
      id: `sec-${tag}`,
      isin: newIsin("GB"),
      cusip: "037833100",
      sedol: "B0YBKJ7",
      figi: "BBG000B9XRY4",
      ticker: `T${tag}`.slice(0, 30),
      name: `Alpha ${tag}`,
      assetClass: "bond",
      currency: "GBP",
      country: "GB",
      exchange: "XLON",
      status: "inactive",
    };
    const minimal = securityRecord({ name: `Beta ${tag}` });
    const body = { securities: [withAll, minimal] };
    const first = await imported(token, "securities", body);
    expect(first).toMatchObject({ dataType: "securities", received: 2, created: 2, updated: 0, unchanged: 0 });
    expect(first.jobId).toMatch(/^job_/);

    const byId = await call("GET", `/api/v1/securities/${withAll.id}`, { token });
    expect(byId.status).toBe(200);
    expect(byId.body.data).toMatchObject({ ...withAll, lookThroughPortfolioId: null });
    expect(byId.body.data.createdAt).toMatch(/Z$/);
    const byIsin = await call("GET", `/api/v1/securities/${withAll.isin}`, { token });
    expect(byIsin.body.data).toEqual(byId.body.data);

    // id defaults to sec_<ISIN>; optional fields are null; status defaults to active.
    const second = await call("GET", `/api/v1/securities/sec_${minimal.isin}`, { token });
    expect(second.status).toBe(200);
    expect(second.body.data).toMatchObject({
      id: `sec_${minimal.isin}`,
      isin: minimal.isin,
      cusip: null,
      sedol: null,
      figi: null,
      ticker: null,
      name: minimal.name,
      assetClass: "equity",
      currency: "EUR",
      country: null,
      exchange: null,
      lookThroughPortfolioId: null,
      status: "active",
    });

    const again = await imported(token, "securities", body);
    expect(again).toMatchObject({ received: 2, created: 0, updated: 0, unchanged: 2 });
    expect(again.jobId).not.toBe(first.jobId);
    expect((await call("GET", `/api/v1/securities/${withAll.id}`, { token })).body.data).toEqual(byId.body.data);
    expect((await call("GET", `/api/v1/securities/sec_${minimal.isin}`, { token })).body.data).toEqual(
      second.body.data,
    );

    // A changed record is an update: createdAt stays, the data changes.
    const renamed = await imported(token, "securities", {
      securities: [{ ...withAll, name: `Alpha renamed ${tag}` }, minimal],
    });
    expect(renamed).toMatchObject({ created: 0, updated: 1, unchanged: 1 });
    const after = (await call("GET", `/api/v1/securities/${withAll.id}`, { token })).body.data;
    expect(after.name).toBe(`Alpha renamed ${tag}`);
    expect(after.createdAt).toBe(byId.body.data.createdAt);
  });

  it("prices: stored with the security id and read back sorted by date; a re-import is unchanged", async () => {
    const sec = securityRecord({ currency: "USD" });
    const [secId] = await createSecurities(token, [sec]);
    const prices = [
      price(sec.isin, "2014-03-05", 101.5, { currency: "USD" }),
      price(sec.isin, "2014-03-03", 100.25, { currency: "USD" }),
      price(sec.isin, "2014-03-04", 99.75, { currency: "USD", type: "mid", source: "other-feed" }),
      price(sec.isin, "2014-03-04", 100, { currency: "USD" }),
    ];
    const first = await imported(token, "prices", { prices });
    expect(first).toMatchObject({ dataType: "prices", received: 4, created: 4, updated: 0, unchanged: 0 });

    const stored = await listAll(token, `/api/v1/securities/${secId}/prices`);
    expect(stored.map((p) => [p.date, p.type, p.price])).toEqual([
      ["2014-03-03", "close", 100.25],
      ["2014-03-04", "close", 100],
      ["2014-03-04", "mid", 99.75],
      ["2014-03-05", "close", 101.5],
    ]);
    for (const p of stored) expect(p).toMatchObject({ securityId: secId, isin: sec.isin, currency: "USD" });
    expect(stored[2].source).toBe("other-feed");

    const again = await imported(token, "prices", { prices });
    expect(again).toMatchObject({ received: 4, created: 0, updated: 0, unchanged: 4 });
    expect(await listAll(token, `/api/v1/securities/${secId}/prices`)).toEqual(stored);

    // Same natural key (security, date, type, source) with a new value: an update, not a second price.
    const corrected = await imported(token, "prices", {
      prices: [price(sec.isin, "2014-03-05", 102, { currency: "USD" })],
    });
    expect(corrected).toMatchObject({ created: 0, updated: 1, unchanged: 0 });
    const afterCorrection = await listAll(token, `/api/v1/securities/${secId}/prices`);
    expect(afterCorrection).toHaveLength(4);
    expect(afterCorrection[3].price).toBe(102);
  });

  it("fx-rates: stored and used by valuation; a re-import is unchanged and changes no valuation", async () => {
    // THB and SGD appear in no other test; the dates are far in the future so no other test's
    // valuation can pick these rates up.
    const portfolio = await createPortfolio(token, { baseCurrency: "SGD" });
    const sec = securityRecord({ currency: "THB" });
    const [secId] = await createSecurities(token, [sec]);
    const rates = [
      { baseCurrency: "THB", quoteCurrency: "SGD", date: "2099-01-02", rate: 0.0392, source: "ecb" },
      { baseCurrency: "THB", quoteCurrency: "SGD", date: "2099-01-01", rate: 0.0391, source: "ecb" },
      { baseCurrency: "SGD", quoteCurrency: "MYR", date: "2099-01-02", rate: 3.4567, source: "ecb" },
    ];
    const first = await imported(token, "fx-rates", { fxRates: rates });
    expect(first).toMatchObject({ dataType: "fx-rates", received: 3, created: 3, updated: 0, unchanged: 0 });
    await imported(token, "prices", { prices: [price(sec.isin, "2099-01-03", 250, { currency: "THB" })] });
    await imported(token, "positions", {
      positions: [{ portfolioId: portfolio.id, securityId: secId, date: "2099-01-03", quantity: 10 }],
    });
    await whenValued(token, portfolio.id);

    // 10 × 250 THB × 0.0392 (the latest THBSGD on or before 2099-01-03) = 98.00 SGD
    const valued = await holdingsOf(token, portfolio.id);
    expect(valued.holdings).toHaveLength(1);
    expect(valued.holdings[0]).toMatchObject({ fxRate: 0.0392, fxMethod: "direct", marketValue: 98 });
    expect(valued.totalValue).toBe(98);

    const again = await imported(token, "fx-rates", { fxRates: rates });
    expect(again).toMatchObject({ received: 3, created: 0, updated: 0, unchanged: 3 });
    await whenValued(token, portfolio.id);
    expect(await holdingsOf(token, portfolio.id)).toEqual(valued);

    // A corrected rate for the same pair, date and source is an update and revalues.
    const corrected = await imported(token, "fx-rates", { fxRates: [{ ...rates[0], rate: 0.04 }] });
    expect(corrected).toMatchObject({ created: 0, updated: 1, unchanged: 0 });
    await whenValued(token, portfolio.id);
    const revalued = await holdingsOf(token, portfolio.id);
    // 10 × 250 × 0.04 = 100.00
    expect(revalued.holdings[0]).toMatchObject({ fxRate: 0.04, marketValue: 100 });
    expect(revalued.totalValue).toBe(100);
  });

  it("positions: a snapshot per portfolio and date, by id or code and by security id or ISIN; a re-import is unchanged", async () => {
    const portfolio = await createPortfolio(token, { baseCurrency: "EUR" });
    const a = securityRecord();
    const b = securityRecord();
    const [aId, bId] = await createSecurities(token, [a, b]);
    await imported(token, "prices", { prices: [price(a.isin, "2014-05-02", 10), price(b.isin, "2014-05-02", 20)] });
    const positions = [
      {
        portfolioId: portfolio.id,
        securityId: aId,
        date: "2014-05-02",
        quantity: 100,
        costBasis: 900,
        currency: "EUR",
      },
      { portfolioCode: portfolio.code.toLowerCase(), isin: b.isin, date: "2014-05-02", quantity: 5 },
    ];
    const first = await imported(token, "positions", { positions });
    expect(first).toMatchObject({ dataType: "positions", received: 2, created: 2, updated: 0, unchanged: 0 });
    await whenValued(token, portfolio.id);

    // 100 × 10 = 1000.00 and 5 × 20 = 100.00: total 1100.00
    const view = await holdingsOf(token, portfolio.id);
    expect(view.date).toBe("2014-05-02");
    expect(view.totalValue).toBe(1100);
    expect(view.holdings.map((h) => [h.securityId, h.quantity, h.marketValue])).toEqual([
      [aId, 100, 1000],
      [bId, 5, 100],
    ]);

    const again = await imported(token, "positions", { positions });
    expect(again).toMatchObject({ received: 2, created: 0, updated: 0, unchanged: 2 });
    await whenValued(token, portfolio.id);
    expect(await holdingsOf(token, portfolio.id)).toEqual(view);

    // A new snapshot for the same date replaces the old one whole: b is gone, a changed.
    const replaced = await imported(token, "positions", {
      positions: [{ portfolioId: portfolio.id, securityId: aId, date: "2014-05-02", quantity: 50 }],
    });
    expect(replaced).toMatchObject({ received: 1, created: 0, updated: 1, unchanged: 0 });
    await whenValued(token, portfolio.id);
    const afterReplace = await holdingsOf(token, portfolio.id, "date=2014-05-02");
    expect(afterReplace.holdings.map((h) => [h.securityId, h.quantity, h.marketValue])).toEqual([[aId, 50, 500]]);
    expect(afterReplace.totalValue).toBe(500);

    // Another date is another snapshot; the first stays readable by date.
    await imported(token, "positions", {
      positions: [{ portfolioId: portfolio.id, securityId: bId, date: "2014-05-09", quantity: 1 }],
    });
    await whenValued(token, portfolio.id);
    expect((await holdingsOf(token, portfolio.id)).holdings.map((h) => h.securityId)).toEqual([bId]);
    expect((await holdingsOf(token, portfolio.id, "date=2014-05-08")).holdings.map((h) => h.securityId)).toEqual([aId]);
  });

  it("transactions: upserted by external id and read back; a re-import is unchanged", async () => {
    const portfolio = await createPortfolio(token, { baseCurrency: "EUR" });
    const sec = securityRecord();
    const [secId] = await createSecurities(token, [sec]);
    const tag = uid("T");
    const transactions = [
      {
        externalId: `${tag}-1`,
        portfolioId: portfolio.id,
        securityId: secId,
        type: "buy",
        tradeDate: "2014-06-02",
        settlementDate: "2014-06-04",
        quantity: 10,
        price: 12.5,
        grossAmount: 125,
        fees: 1.5,
        netAmount: 126.5,
        currency: "EUR",
        source: "custodian",
      },
      {
        externalId: `${tag}-2`,
        portfolioCode: portfolio.code,
        isin: sec.isin,
        type: "dividend",
        status: "settled",
        tradeDate: "2014-06-10",
        netAmount: 3.2,
        currency: "EUR",
      },
      {
        externalId: `${tag}-3`,
        portfolioId: portfolio.id,
        type: "deposit",
        tradeDate: "2014-06-01",
        netAmount: 1000,
        currency: "EUR",
      },
    ];
    const first = await imported(token, "transactions", { transactions });
    expect(first).toMatchObject({ dataType: "transactions", received: 3, created: 3, updated: 0, unchanged: 0 });

    const stored = await listAll(token, `/api/v1/transactions?portfolioId=${portfolio.id}`);
    expect(stored.map((t) => t.externalId)).toEqual([`${tag}-3`, `${tag}-1`, `${tag}-2`]);
    const buy = stored[1];
    expect(buy).toMatchObject({
      externalId: `${tag}-1`,
      portfolioId: portfolio.id,
      securityId: secId,
      type: "buy",
      status: "pending",
      tradeDate: "2014-06-02",
      settlementDate: "2014-06-04",
      quantity: 10,
      price: 12.5,
      grossAmount: 125,
      fees: 1.5,
      netAmount: 126.5,
      currency: "EUR",
      source: "custodian",
    });
    expect(buy.id).toMatch(/^txn_/);
    expect(buy.statusHistory).toEqual([{ status: "pending", at: expect.stringMatching(/Z$/), source: "custodian" }]);
    expect(stored[0]).toMatchObject({
      securityId: null,
      type: "deposit",
      status: "pending",
      quantity: null,
      price: null,
      settlementDate: null,
    });
    expect(stored[2]).toMatchObject({ securityId: secId, type: "dividend", status: "settled" });
    expect(stored[2].statusHistory.map((h: { status: string }) => h.status)).toEqual(["settled"]);

    const again = await imported(token, "transactions", { transactions });
    expect(again).toMatchObject({ received: 3, created: 0, updated: 0, unchanged: 3 });
    expect(await listAll(token, `/api/v1/transactions?portfolioId=${portfolio.id}`)).toEqual(stored);

    // The same external id again, now settled: the same transaction, updated, with its history.
    const settled = await imported(token, "transactions", {
      transactions: [{ ...transactions[0], status: "settled" }],
    });
    expect(settled).toMatchObject({ created: 0, updated: 1, unchanged: 0 });
    const after = await listAll(token, `/api/v1/transactions?portfolioId=${portfolio.id}`);
    expect(after).toHaveLength(3);
    const moved = after.find((t) => t.externalId === `${tag}-1`);
    expect(moved.id).toBe(buy.id);
    expect(moved.status).toBe("settled");
    expect(moved.createdAt).toBe(buy.createdAt);
    expect(moved.statusHistory.map((h: { status: string }) => h.status)).toEqual(["pending", "settled"]);
  });

  it("transactions: the same external id in two portfolios is two transactions", async () => {
    const p1 = await createPortfolio(token);
    const p2 = await createPortfolio(token);
    const externalId = uid("shared");
    const record = { externalId, type: "deposit", tradeDate: "2014-07-01", netAmount: 5, currency: "EUR" };
    const result = await imported(token, "transactions", {
      transactions: [
        { ...record, portfolioId: p1.id },
        { ...record, portfolioId: p2.id, netAmount: 6 },
      ],
    });
    expect(result).toMatchObject({ created: 2, updated: 0, unchanged: 0 });
    const [t1] = await listAll(token, `/api/v1/transactions?portfolioId=${p1.id}`);
    const [t2] = await listAll(token, `/api/v1/transactions?portfolioId=${p2.id}`);
    expect(t1).toMatchObject({ externalId, portfolioId: p1.id, netAmount: 5 });
    expect(t2).toMatchObject({ externalId, portfolioId: p2.id, netAmount: 6 });
    expect(t1.id).not.toBe(t2.id);
  });

  it("each import is a refresh job readable at /jobs/{id}", async () => {
    const sec = securityRecord();
    const result = await imported(token, "securities", { securities: [sec] });
    const job = await call("GET", `/api/v1/jobs/${result.jobId}`, { token });
    expect(job.status).toBe(200);
    expect(job.body.data).toMatchObject({
      id: result.jobId,
      source: "api",
      dataType: "securities",
      status: "completed",
      counts: { received: 1, accepted: 1, rejected: 0 },
      errors: [],
    });
    expect(job.body.data.completedAt >= job.body.data.startedAt).toBe(true);
  });
});
