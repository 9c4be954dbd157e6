import { beforeAll, describe, expect, it } from "vitest";
import { adminToken, call, useOwnRuntime } from "./http";
import {
  createPortfolio,
  createSecurities,
  eventsWhere,
  getPortfolio,
  holdingsOf,
  imported,
  price,
  securityRecord,
  whenValued,
  type Holding,
} from "./investment-fixtures";

useOwnRuntime();

// Valuation, checked against hand-computed figures, on a runtime of this file's own (FX imports
// revalue every snapshot on or after their date). Imports answer before valuation: each check waits
// until the portfolios are `current` (whenValued). The scenarios run one after another and use
// their own currencies (SEK NOK DKK CZK USD, CHF PLN, CAD AUD NZD) and dates (2025-2027).
// Rounding: marketValue = round2(quantity × price × fx), half away from zero; the total is the
// exact sum of the rounded values; weight = marketValue / total rounded to 8 dp.
/** When the valuation was recorded: portfolio.valued carries it as `asAt` (time travel). */
const iso = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe("valuation", () => {
  let token: string;
  beforeAll(async () => {
    token = await adminToken();
  });

  const fx = (baseCurrency: string, quoteCurrency: string, date: string, rate: number, source = "wmr") => ({
    baseCurrency,
    quoteCurrency,
    date,
    rate,
    source,
  });
  const row = (h: Holding) => ({
    securityId: h.securityId,
    quantity: h.quantity,
    price: h.price,
    priceDate: h.priceDate,
    priceType: h.priceType,
    priceCurrency: h.priceCurrency,
    fxRate: h.fxRate,
    fxMethod: h.fxMethod,
    marketValue: h.marketValue,
    weight: h.weight,
    via: h.via,
  });

  it("multi-currency: identity, direct, inverse and USD-cross FX; price choice by date then close > nav > mid", async () => {
    const D = "2025-03-10";
    const portfolio = await createPortfolio(token, { baseCurrency: "SEK" });
    const s1 = securityRecord({ currency: "SEK" });
    const s2 = securityRecord({ currency: "NOK" });
    const s3 = securityRecord({ currency: "DKK" });
    const s4 = securityRecord({ currency: "CZK" });
    const s5 = securityRecord({ currency: "SEK", assetClass: "fund" });
    const [id1, id2, id3, id4, id5] = await createSecurities(token, [s1, s2, s3, s4, s5]);
    await imported(token, "prices", {
      prices: [
        price(s1.isin, D, 123.45, { currency: "SEK" }),
        price(s1.isin, D, 999, { currency: "SEK", type: "nav" }), // same date: close beats nav
        price(s1.isin, "2025-03-11", 200, { currency: "SEK" }), // after the valuation date: ignored
        price(s2.isin, "2025-03-09", 80, { currency: "NOK" }),
        price(s2.isin, D, 87.6543, { currency: "NOK", type: "mid" }), // newer date wins over the type
        price(s3.isin, D, 512.5, { currency: "DKK" }),
        price(s4.isin, D, 46.3, { currency: "CZK" }),
        price(s5.isin, "2025-03-08", 1000.005, { currency: "SEK", type: "nav" }),
        price(s5.isin, D, 5, { currency: "SEK", type: "bid" }), // bid is not a valuation price
      ],
    });
    await imported(token, "fx-rates", {
      fxRates: [
        fx("NOK", "SEK", "2025-03-01", 1.01),
        fx("NOK", "SEK", "2025-03-09", 0.98765), // the latest on or before D
        fx("NOK", "SEK", "2025-03-15", 0.5), // after D: ignored
        fx("SEK", "DKK", D, 0.65), // only the inverse exists for DKK
        fx("USD", "CZK", D, 23.15), // CZK → USD: inverse leg
        fx("USD", "SEK", D, 10.45), // USD → SEK: direct leg
      ],
    });
    // Positions last, so the one valuation that runs sees every price and rate.
    const positions = [
      { portfolioId: portfolio.id, securityId: id1, date: D, quantity: 100 },
      { portfolioId: portfolio.id, securityId: id2, date: D, quantity: 250 },
      { portfolioId: portfolio.id, securityId: id3, date: D, quantity: 40 },
      { portfolioId: portfolio.id, securityId: id4, date: D, quantity: 1000 },
      { portfolioId: portfolio.id, securityId: id5, date: D, quantity: 3 },
    ];
    await imported(token, "positions", { positions });
    await whenValued(token, portfolio.id);

    // s1: 100 × 123.45 SEK (close, D)                          = 12345.00
    // s2: 250 × 87.6543 NOK (mid, D) × 0.98765 NOKSEK (03-09)   = 21642.94234875 → 21642.94
    // s3: 40 × 512.5 DKK × 1/0.65 (inverse of SEKDKK)           = 31538.461538… → 31538.46
    // s4: 1000 × 46.30 CZK × (1/23.15 USDCZK) × 10.45 USDSEK    = 2000 × 10.45 = 20900.00
    // s5: 3 × 1000.005 SEK (nav, 03-08)                         = 3000.015 → 3000.02 (half up)
    // total = 12345.00 + 21642.94 + 31538.46 + 20900.00 + 3000.02 = 89426.42
    // weights: 31538.46/89426.42 = 0.35267497, 21642.94/… = 0.24201953, 20900/… = 0.23371169,
    //          12345/… = 0.13804645, 3000.02/… = 0.03354736
    const view = await holdingsOf(token, portfolio.id);
    expect(view).toMatchObject({ portfolioId: portfolio.id, date: D, baseCurrency: "SEK", lookThrough: false });
    expect(view.totalValue).toBe(89426.42);
    expect(view.holdings.map(row)).toEqual([
      {
        securityId: id3,
        quantity: 40,
        price: 512.5,
        priceDate: D,
        priceType: "close",
        priceCurrency: "DKK",
        fxRate: 1.5384615385,
        fxMethod: "inverse",
        marketValue: 31538.46,
        weight: 0.35267497,
        via: undefined,
      },
      {
        securityId: id2,
        quantity: 250,
        price: 87.6543,
        priceDate: D,
        priceType: "mid",
        priceCurrency: "NOK",
        fxRate: 0.98765,
        fxMethod: "direct",
        marketValue: 21642.94,
        weight: 0.24201953,
        via: undefined,
      },
      {
        securityId: id4,
        quantity: 1000,
        price: 46.3,
        priceDate: D,
        priceType: "close",
        priceCurrency: "CZK",
        fxRate: 0.4514038877,
        fxMethod: "cross",
        marketValue: 20900,
        weight: 0.23371169,
        via: undefined,
      },
      {
        securityId: id1,
        quantity: 100,
        price: 123.45,
        priceDate: D,
        priceType: "close",
        priceCurrency: "SEK",
        fxRate: 1,
        fxMethod: "identity",
        marketValue: 12345,
        weight: 0.13804645,
        via: undefined,
      },
      {
        securityId: id5,
        quantity: 3,
        price: 1000.005,
        priceDate: "2025-03-08",
        priceType: "nav",
        priceCurrency: "SEK",
        fxRate: 1,
        fxMethod: "identity",
        marketValue: 3000.02,
        weight: 0.03354736,
        via: undefined,
      },
    ]);
    expect(view.holdings[0]).toMatchObject({ isin: s3.isin, name: s3.name, assetClass: "equity" });
    expect(view.holdings[4]).toMatchObject({ isin: s5.isin, assetClass: "fund" });

    const stored = await getPortfolio(token, portfolio.id);
    expect(stored.totalValue).toBe(89426.42);
    expect(stored.latestValuationDate).toBe(D);
    const valued = await eventsWhere("portfolio.valued", (d) => d.portfolioId === portfolio.id);
    expect(valued.map((e) => e.data)).toEqual([
      {
        portfolioId: portfolio.id,
        valuationDate: D,
        totalValue: 89426.42,
        currency: "SEK",
        complete: true,
        unvaluedCount: 0,
        asAt: expect.stringMatching(iso),
      },
    ]);
    expect(view).toMatchObject({ complete: true, unvaluedCount: 0 });
    expect(view.holdings.find((h) => h.securityId === id4)).toMatchObject({ fxMethod: "cross", fxPivot: "USD" });
    expect(view.holdings.find((h) => h.securityId === id3)).toMatchObject({ fxPivot: null, unvalued: null });

    // The date selects the latest valuation on or before it.
    expect((await holdingsOf(token, portfolio.id, "date=2025-03-20")).totalValue).toBe(89426.42);
    const before = await holdingsOf(token, portfolio.id, "date=2025-03-09");
    expect(before).toMatchObject({ date: null, totalValue: 0, holdings: [] });

    // A corrected price revalues: s1 100 × 124.45 = 12445.00 (+100.00) → 89526.42
    await imported(token, "prices", { prices: [price(s1.isin, D, 124.45, { currency: "SEK" })] });
    await whenValued(token, portfolio.id);
    expect((await holdingsOf(token, portfolio.id)).totalValue).toBe(89526.42);
    // A corrected rate revalues: s3 20500 / 0.64 = 32031.25 → 12445 + 21642.94 + 32031.25 + 20900 + 3000.02 = 90019.21
    await imported(token, "fx-rates", { fxRates: [fx("SEK", "DKK", D, 0.64)] });
    await whenValued(token, portfolio.id);
    const revalued = await holdingsOf(token, portfolio.id);
    expect(revalued.totalValue).toBe(90019.21);
    expect(revalued.holdings.find((h) => h.securityId === id3)).toMatchObject({
      fxRate: 1.5625,
      fxMethod: "inverse",
      marketValue: 32031.25,
    });
    expect((await getPortfolio(token, portfolio.id)).totalValue).toBe(90019.21);
    const totals = (await eventsWhere("portfolio.valued", (d) => d.portfolioId === portfolio.id)).map(
      (e) => e.data.totalValue,
    );
    expect(totals).toEqual([89426.42, 89526.42, 90019.21]);
  });

  it("composite: valued from its members' positions, quantities netted before rounding", async () => {
    const D = "2025-06-30";
    const a = await createPortfolio(token, { baseCurrency: "CHF" });
    const b = await createPortfolio(token, { baseCurrency: "CHF" });
    const composite = await createPortfolio(token, { baseCurrency: "CHF", type: "composite", memberIds: [a.id, b.id] });
    const sa = securityRecord({ currency: "CHF" });
    const sb = securityRecord({ currency: "PLN" });
    const sc = securityRecord({ currency: "CHF", assetClass: "bond" });
    const [ida, idb, idc] = await createSecurities(token, [sa, sb, sc]);
    await imported(token, "prices", {
      prices: [
        price(sa.isin, D, 100, { currency: "CHF" }),
        price(sb.isin, D, 25.5, { currency: "PLN" }),
        price(sc.isin, D, 333.333, { currency: "CHF" }),
      ],
    });
    await imported(token, "fx-rates", { fxRates: [fx("PLN", "CHF", D, 0.2215)] });
    await imported(token, "positions", {
      positions: [
        { portfolioId: a.id, securityId: ida, date: D, quantity: 10 },
        { portfolioId: a.id, securityId: idb, date: D, quantity: 100 },
      ],
    });
    await imported(token, "positions", {
      positions: [
        { portfolioId: b.id, securityId: ida, date: D, quantity: 5 },
        { portfolioId: b.id, securityId: idb, date: D, quantity: 1 },
        { portfolioId: b.id, securityId: idc, date: D, quantity: 3 },
      ],
    });
    await whenValued(token, a.id, b.id, composite.id);

    // A: 10 × 100 = 1000.00; 100 × 25.5 × 0.2215 = 564.825 → 564.83; total 1564.83
    // B: 5 × 100 = 500.00; 1 × 25.5 × 0.2215 = 5.64825 → 5.65; 3 × 333.333 = 999.999 → 1000.00; total 1505.65
    expect((await getPortfolio(token, a.id)).totalValue).toBe(1564.83);
    expect((await getPortfolio(token, b.id)).totalValue).toBe(1505.65);

    // Composite nets the quantities first: sa 15 × 100 = 1500.00; sb 101 × 25.5 × 0.2215 = 570.47325 → 570.47
    // (not 564.83 + 5.65 = 570.48); sc 3 × 333.333 → 1000.00. Total 1500.00 + 1000.00 + 570.47 = 3070.47.
    // Weights: 1500/3070.47 = 0.48852456, 1000/3070.47 = 0.32568304, 570.47/3070.47 = 0.1857924
    const view = await holdingsOf(token, composite.id);
    expect(view).toMatchObject({ portfolioId: composite.id, date: D, baseCurrency: "CHF", totalValue: 3070.47 });
    expect(view.holdings.map(row)).toEqual([
      {
        securityId: ida,
        quantity: 15,
        price: 100,
        priceDate: D,
        priceType: "close",
        priceCurrency: "CHF",
        fxRate: 1,
        fxMethod: "identity",
        marketValue: 1500,
        weight: 0.48852456,
        via: undefined,
      },
      {
        securityId: idc,
        quantity: 3,
        price: 333.333,
        priceDate: D,
        priceType: "close",
        priceCurrency: "CHF",
        fxRate: 1,
        fxMethod: "identity",
        marketValue: 1000,
        weight: 0.32568304,
        via: undefined,
      },
      {
        securityId: idb,
        quantity: 101,
        price: 25.5,
        priceDate: D,
        priceType: "close",
        priceCurrency: "PLN",
        fxRate: 0.2215,
        fxMethod: "direct",
        marketValue: 570.47,
        weight: 0.1857924,
        via: undefined,
      },
    ]);
    const stored = await getPortfolio(token, composite.id);
    expect(stored.totalValue).toBe(3070.47);
    expect(stored.latestValuationDate).toBe(D);
    const events = await eventsWhere("portfolio.valued", (d) => d.portfolioId === composite.id);
    expect(events.at(-1)?.data).toEqual({
      portfolioId: composite.id,
      valuationDate: D,
      totalValue: 3070.47,
      currency: "CHF",
      complete: true,
      unvaluedCount: 0,
      asAt: expect.stringMatching(iso),
    });
  });

  it("composite: a member's earlier snapshot counts on the composite's later date, whatever the import order", async () => {
    const c = await createPortfolio(token, { baseCurrency: "CHF" });
    const d = await createPortfolio(token, { baseCurrency: "CHF" });
    const composite = await createPortfolio(token, { baseCurrency: "CHF", type: "composite", memberIds: [c.id, d.id] });
    const sx = securityRecord({ currency: "CHF" });
    const sy = securityRecord({ currency: "CHF" });
    const [idx, idy] = await createSecurities(token, [sx, sy]);
    await imported(token, "prices", {
      prices: [
        price(sx.isin, "2025-07-31", 100, { currency: "CHF" }),
        price(sy.isin, "2025-07-15", 40, { currency: "CHF" }),
        price(sy.isin, "2025-07-31", 41, { currency: "CHF" }),
      ],
    });
    // C's snapshot of 07-31 first, then D's of 07-15: on 07-31 the composite holds C's 07-31 and
    // D's 07-15 positions (its latest on or before).
    await imported(token, "positions", {
      positions: [{ portfolioId: c.id, securityId: idx, date: "2025-07-31", quantity: 2 }],
    });
    await imported(token, "positions", {
      positions: [{ portfolioId: d.id, securityId: idy, date: "2025-07-15", quantity: 10 }],
    });
    await whenValued(token, c.id, d.id, composite.id);

    // 07-31: sx 2 × 100 = 200.00; sy 10 × 41 = 410.00; total 610.00
    const view = await holdingsOf(token, composite.id, "date=2025-07-31");
    expect(view.date).toBe("2025-07-31");
    expect(view.holdings.map((h) => [h.securityId, h.quantity, h.marketValue])).toEqual([
      [idy, 10, 410],
      [idx, 2, 200],
    ]);
    expect(view.totalValue).toBe(610);
    const stored = await getPortfolio(token, composite.id);
    expect(stored.latestValuationDate).toBe("2025-07-31");
    expect(stored.totalValue).toBe(610);
    // 07-15: only D: 10 × 40 = 400.00
    expect((await holdingsOf(token, composite.id, "date=2025-07-15")).totalValue).toBe(400);
  });

  it("look-through: two fund levels, each in another currency than the portfolio; children add up to the parent", async () => {
    const D = "2027-09-15";
    const fb = await createPortfolio(token, { baseCurrency: "NZD", type: "fund" });
    const fa = await createPortfolio(token, { baseCurrency: "AUD", type: "fund" });
    const top = await createPortfolio(token, { baseCurrency: "CAD" });
    const e1 = securityRecord({ currency: "NZD" });
    const e2 = securityRecord({ currency: "NZD" });
    const e3 = securityRecord({ currency: "AUD" });
    const e4 = securityRecord({ currency: "CAD" });
    const fbs = securityRecord({ currency: "NZD", assetClass: "fund", lookThroughPortfolioId: fb.id });
    const fas = securityRecord({ currency: "AUD", assetClass: "fund", lookThroughPortfolioId: fa.id });
    const [id1, id2, id3, id4, idFb, idFa] = await createSecurities(token, [e1, e2, e3, e4, fbs, fas]);
    expect((await holdingsOf(token, top.id)).holdings).toEqual([]);
    await imported(token, "prices", {
      prices: [
        price(e1.isin, D, 12.34, { currency: "NZD" }),
        price(e2.isin, D, 68.5, { currency: "NZD" }),
        price(e3.isin, D, 30.1, { currency: "AUD" }),
        price(e4.isin, D, 50, { currency: "CAD" }),
        price(fbs.isin, D, 13.02, { currency: "NZD", type: "nav" }),
        price(fas.isin, D, 68.586, { currency: "AUD", type: "nav" }),
      ],
    });
    await imported(token, "fx-rates", {
      fxRates: [fx("NZD", "AUD", D, 0.9), fx("AUD", "CAD", D, 0.91), fx("NZD", "CAD", D, 0.819)],
    });
    await imported(token, "positions", {
      positions: [
        { portfolioId: fb.id, securityId: id1, date: D, quantity: 1000 },
        { portfolioId: fb.id, securityId: id2, date: D, quantity: 200 },
      ],
    });
    await imported(token, "positions", {
      positions: [
        { portfolioId: fa.id, securityId: idFb, date: D, quantity: 200 },
        { portfolioId: fa.id, securityId: id3, date: D, quantity: 150 },
      ],
    });
    await imported(token, "positions", {
      positions: [
        { portfolioId: top.id, securityId: idFa, date: D, quantity: 500 },
        { portfolioId: top.id, securityId: id4, date: D, quantity: 100 },
      ],
    });
    await whenValued(token, fb.id, fa.id, top.id);

    // Fund B (NZD): e1 1000 × 12.34 = 12340.00; e2 200 × 68.50 = 13700.00; total 26040.00 (nav 13.02 × 2000 units)
    expect((await getPortfolio(token, fb.id)).totalValue).toBe(26040);
    // Fund A (AUD): fbs 200 × 13.02 NZD × 0.9 = 2343.60; e3 150 × 30.10 = 4515.00; total 6858.60 (nav 68.586 × 100 units)
    expect((await getPortfolio(token, fa.id)).totalValue).toBe(6858.6);
    // Top (CAD): fas 500 × 68.586 AUD × 0.91 = 31206.63; e4 100 × 50 = 5000.00; total 36206.63
    // weights 31206.63/36206.63 = 0.86190375, 5000/36206.63 = 0.13809625
    const plain = await holdingsOf(token, top.id, "lookThrough=false");
    expect(plain).toMatchObject({ baseCurrency: "CAD", lookThrough: false, totalValue: 36206.63, date: D });
    expect(plain.holdings.map(row)).toEqual([
      {
        securityId: idFa,
        quantity: 500,
        price: 68.586,
        priceDate: D,
        priceType: "nav",
        priceCurrency: "AUD",
        fxRate: 0.91,
        fxMethod: "direct",
        marketValue: 31206.63,
        weight: 0.86190375,
        via: undefined,
      },
      {
        securityId: id4,
        quantity: 100,
        price: 50,
        priceDate: D,
        priceType: "close",
        priceCurrency: "CAD",
        fxRate: 1,
        fxMethod: "identity",
        marketValue: 5000,
        weight: 0.13809625,
        via: undefined,
      },
    ]);
    expect(await holdingsOf(token, top.id)).toEqual(plain);

    // Level 1, fas → fund A: fraction = 31206.63 / (6858.60 AUD × 0.91) = 5;
    //   split 31206.63 by A's values: fbs 31206.63 × 2343.60/6858.60 = 10663.38, e3 × 4515/6858.60 = 20543.25
    //   (4.55 × 2343.60 and 4.55 × 4515); e3 quantity 150 × 5 = 750, fx 1 × 0.91.
    // Level 2, fbs → fund B: fraction = 10663.38 / (26040 NZD × 0.819 NZDCAD) = 0.5;
    //   e1 10663.38 × 12340/26040 = 5053.23, e2 × 13700/26040 = 5610.15 (0.4095 × each);
    //   quantities 1000 × 0.5 = 500 and 200 × 0.5 = 100, fx 1 × 0.819.
    // Children: 20543.25 + 5053.23 + 5610.15 = 31206.63 = fas; total unchanged 36206.63.
    // Weights: 20543.25/36206.63 = 0.56738918, 5610.15/… = 0.15494814, 5053.23/… = 0.13956643, 5000/… = 0.13809625
    const through = await holdingsOf(token, top.id, "lookThrough=true");
    expect(through).toMatchObject({
      portfolioId: top.id,
      baseCurrency: "CAD",
      lookThrough: true,
      totalValue: 36206.63,
      date: D,
    });
    expect(through.holdings.map(row)).toEqual([
      {
        securityId: id3,
        quantity: 750,
        price: 30.1,
        priceDate: D,
        priceType: "close",
        priceCurrency: "AUD",
        fxRate: 0.91,
        fxMethod: "direct",
        marketValue: 20543.25,
        weight: 0.56738918,
        via: [idFa],
      },
      {
        securityId: id2,
        quantity: 100,
        price: 68.5,
        priceDate: D,
        priceType: "close",
        priceCurrency: "NZD",
        fxRate: 0.819,
        fxMethod: "direct",
        marketValue: 5610.15,
        weight: 0.15494814,
        via: [idFa, idFb],
      },
      {
        securityId: id1,
        quantity: 500,
        price: 12.34,
        priceDate: D,
        priceType: "close",
        priceCurrency: "NZD",
        fxRate: 0.819,
        fxMethod: "direct",
        marketValue: 5053.23,
        weight: 0.13956643,
        via: [idFa, idFb],
      },
      {
        securityId: id4,
        quantity: 100,
        price: 50,
        priceDate: D,
        priceType: "close",
        priceCurrency: "CAD",
        fxRate: 1,
        fxMethod: "identity",
        marketValue: 5000,
        weight: 0.13809625,
        via: undefined,
      },
    ]);
    const children = through.holdings
      .filter((h) => h.via?.[0] === idFa)
      .reduce((sum, h) => sum + Math.round((h.marketValue ?? 0) * 100), 0);
    expect(children).toBe(3120663);
    expect(through.holdings.find((h) => h.securityId === id1)).toMatchObject({
      isin: e1.isin,
      name: e1.name,
      assetClass: "equity",
    });

    // Fund A looked through on its own: fbs 2343.60 AUD / (26040 NZD × 0.9) = 0.1 of fund B;
    // e1 2343.60 × 12340/26040 = 1110.60 (100 units), e2 × 13700/26040 = 1233.00 (20 units), fx 0.9.
    const faThrough = await holdingsOf(token, fa.id, "lookThrough=true");
    expect(faThrough.totalValue).toBe(6858.6);
    expect(faThrough.holdings.map((h) => [h.securityId, h.quantity, h.fxRate, h.marketValue, h.via])).toEqual([
      [id3, 150, 1, 4515, undefined],
      [id2, 20, 0.9, 1233, [idFb]],
      [id1, 100, 0.9, 1110.6, [idFb]],
    ]);
  });

  it("a snapshot replaced by a smaller one removes the missing position, counts it and revalues the date", async () => {
    const D = "2028-01-10";
    const portfolio = await createPortfolio(token, { baseCurrency: "EUR" });
    const [sa, sb, sc] = [securityRecord(), securityRecord(), securityRecord()];
    const [ida, idb, idc] = await createSecurities(token, [sa, sb, sc]);
    await imported(token, "prices", {
      prices: [price(sa.isin, D, 10), price(sb.isin, D, 20), price(sc.isin, D, 30)],
    });
    const three = [ida, idb, idc].map((securityId) => ({
      portfolioId: portfolio.id,
      securityId,
      date: D,
      quantity: 1,
    }));
    expect(await imported(token, "positions", { positions: three })).toMatchObject({
      received: 3,
      created: 3,
      updated: 0,
      unchanged: 0,
      removed: 0,
    });
    await whenValued(token, portfolio.id);
    expect((await holdingsOf(token, portfolio.id, `date=${D}`)).totalValue).toBe(60);

    // The same date again without the third position: the two kept are unchanged, one is removed.
    const shrunk = await imported(token, "positions", { positions: three.slice(0, 2) });
    expect(shrunk).toEqual({
      jobId: expect.any(String),
      dataType: "positions",
      received: 2,
      created: 0,
      updated: 0,
      unchanged: 2,
      removed: 1,
    });
    const job = await call("GET", `/api/v1/jobs/${shrunk.jobId}`, { token });
    expect(job.body.data.counts).toEqual({ received: 2, accepted: 2, rejected: 0, removed: 1 });
    const [after] = await whenValued(token, portfolio.id);
    const view = await holdingsOf(token, portfolio.id, `date=${D}`);
    expect(view.totalValue).toBe(30);
    expect(view.holdings.map((h) => [h.securityId, h.marketValue])).toEqual([
      [idb, 20],
      [ida, 10],
    ]);
    expect(after?.totalValue).toBe(30);
    const totals = (await eventsWhere("portfolio.valued", (d) => d.portfolioId === portfolio.id)).map(
      (e) => e.data.totalValue,
    );
    expect(totals).toEqual([60, 30]);
  });

  it("an incomplete valuation says so: unvalued holdings, complete and unvaluedCount on holdings, portfolio and portfolio.valued", async () => {
    const D = "2028-02-10";
    const portfolio = await createPortfolio(token, { baseCurrency: "EUR" });
    expect(portfolio).toMatchObject({ valuationComplete: null, unvaluedCount: null });
    const priced = securityRecord();
    const unpriced = securityRecord();
    const forint = securityRecord({ currency: "HUF" });
    const [idPriced, idUnpriced, idForint] = await createSecurities(token, [priced, unpriced, forint]);
    await imported(token, "prices", {
      prices: [price(priced.isin, D, 10), price(forint.isin, D, 2000, { currency: "HUF" })],
    });
    await imported(token, "positions", {
      positions: [
        { portfolioId: portfolio.id, securityId: idPriced, date: D, quantity: 2 },
        { portfolioId: portfolio.id, securityId: idUnpriced, date: D, quantity: 3 },
        { portfolioId: portfolio.id, securityId: idForint, date: D, quantity: 4 },
      ],
    });
    const [valued] = await whenValued(token, portfolio.id);
    // Only the EUR holding has a value: 2 × 10 = 20.00, weight 1 of the valued holdings.
    expect(valued).toMatchObject({
      totalValue: 20,
      latestValuationDate: D,
      valuationStatus: "current",
      valuationComplete: false,
      unvaluedCount: 2,
    });
    const view = await holdingsOf(token, portfolio.id);
    expect(view).toMatchObject({ totalValue: 20, complete: false, unvaluedCount: 2 });
    expect(view.holdings.map((h) => [h.securityId, h.marketValue, h.weight, h.unvalued])).toEqual([
      [idPriced, 20, 1, null],
      // Unvalued holdings come last, by security id.
      ...[
        [idForint, null, null, "MISSING_FX_RATE"],
        [idUnpriced, null, null, "MISSING_PRICE"],
      ].sort((a, b) => (String(a[0]) < String(b[0]) ? -1 : 1)),
    ]);
    const events = await eventsWhere("portfolio.valued", (d) => d.portfolioId === portfolio.id);
    expect(events.map((e) => e.data)).toEqual([
      {
        portfolioId: portfolio.id,
        valuationDate: D,
        totalValue: 20,
        currency: "EUR",
        complete: false,
        unvaluedCount: 2,
        asAt: expect.stringMatching(iso),
      },
    ]);

    // The missing price and rate arrive: 3 × 5 = 15.00; 4 × 2000 HUF / 400 (inverse of EURHUF) = 20.00.
    await imported(token, "prices", { prices: [price(unpriced.isin, D, 5)] });
    await imported(token, "fx-rates", { fxRates: [fx("EUR", "HUF", D, 400)] });
    const [complete] = await whenValued(token, portfolio.id);
    expect(complete).toMatchObject({ totalValue: 55, valuationComplete: true, unvaluedCount: 0 });
    expect(await holdingsOf(token, portfolio.id)).toMatchObject({ totalValue: 55, complete: true, unvaluedCount: 0 });
    const last = (await eventsWhere("portfolio.valued", (d) => d.portfolioId === portfolio.id)).at(-1);
    expect(last?.data).toMatchObject({ totalValue: 55, complete: true, unvaluedCount: 0 });
  });

  it("composites and look-through carry a member's or a fund's unvalued holdings", async () => {
    const D = "2028-03-10";
    const fund = await createPortfolio(token, { baseCurrency: "EUR", type: "fund" });
    const top = await createPortfolio(token, { baseCurrency: "EUR" });
    const other = await createPortfolio(token, { baseCurrency: "EUR" });
    const composite = await createPortfolio(token, {
      baseCurrency: "EUR",
      type: "composite",
      memberIds: [top.id, other.id],
    });
    const e1 = securityRecord();
    const e2 = securityRecord();
    const x = securityRecord();
    const units = securityRecord({ assetClass: "fund", lookThroughPortfolioId: fund.id });
    const [id1, id2, idx, idUnits] = await createSecurities(token, [e1, e2, x, units]);
    await imported(token, "prices", {
      prices: [price(e1.isin, D, 10), price(units.isin, D, 10, { type: "nav" })],
    });
    await imported(token, "positions", {
      positions: [
        { portfolioId: fund.id, securityId: id1, date: D, quantity: 10 },
        { portfolioId: fund.id, securityId: id2, date: D, quantity: 5 },
        { portfolioId: top.id, securityId: idUnits, date: D, quantity: 20 },
        { portfolioId: other.id, securityId: idx, date: D, quantity: 1 },
      ],
    });
    await whenValued(token, fund.id, top.id, other.id, composite.id);

    // The fund's units are valued at their NAV: 20 × 10 = 200.00; the top portfolio itself is complete.
    expect(await holdingsOf(token, top.id)).toMatchObject({ totalValue: 200, complete: true, unvaluedCount: 0 });
    // Looked through, the fund's unpriced e2 shows up unvalued (10 units: 20 of the fund's 10 × 10 value).
    const through = await holdingsOf(token, top.id, "lookThrough=true");
    expect(through).toMatchObject({ totalValue: 200, complete: false, unvaluedCount: 1 });
    expect(through.holdings.map((h) => [h.securityId, h.quantity, h.marketValue, h.unvalued, h.via])).toEqual([
      [id1, 20, 200, null, [idUnits]],
      [id2, 10, null, "MISSING_PRICE", [idUnits]],
    ]);
    // The composite holds the other member's unpriced x.
    expect(await holdingsOf(token, composite.id)).toMatchObject({ totalValue: 200, complete: false, unvaluedCount: 1 });
    expect(await getPortfolio(token, composite.id)).toMatchObject({ valuationComplete: false, unvaluedCount: 1 });
    expect(await getPortfolio(token, fund.id)).toMatchObject({ valuationComplete: false, unvaluedCount: 1 });
  });

  it("FX crosses through the first configured pivot with both legs: EUR-based rates value a USD holding in a GBP portfolio", async () => {
    const D = "2028-04-10";
    const portfolio = await createPortfolio(token, { baseCurrency: "GBP" });
    const dollar = securityRecord({ currency: "USD" });
    const yen = securityRecord({ currency: "JPY" });
    const [idDollar, idYen] = await createSecurities(token, [dollar, yen]);
    await imported(token, "prices", {
      prices: [price(dollar.isin, D, 100, { currency: "USD" }), price(yen.isin, D, 1000, { currency: "JPY" })],
    });
    await imported(token, "fx-rates", { fxRates: [fx("EUR", "USD", D, 1.25), fx("EUR", "JPY", D, 200)] });
    await imported(token, "positions", {
      positions: [
        { portfolioId: portfolio.id, securityId: idDollar, date: D, quantity: 10 },
        { portfolioId: portfolio.id, securityId: idYen, date: D, quantity: 1 },
      ],
    });
    await whenValued(token, portfolio.id);
    expect(await holdingsOf(token, portfolio.id)).toMatchObject({ complete: false, unvaluedCount: 2 });

    // EURGBP arrives: its import revalues the portfolio, whose holdings now cross through EUR.
    // USD → EUR 1/1.25 → GBP 0.8 = 0.64: 10 × 100 × 0.64 = 640.00; JPY → EUR 1/200 → GBP 0.8 = 0.004: 4.00.
    await imported(token, "fx-rates", { fxRates: [fx("EUR", "GBP", D, 0.8)] });
    await whenValued(token, portfolio.id);
    const crossed = await holdingsOf(token, portfolio.id);
    expect(crossed).toMatchObject({ totalValue: 644, complete: true, unvaluedCount: 0 });
    expect(crossed.holdings.map((h) => [h.securityId, h.fxRate, h.fxMethod, h.fxPivot, h.marketValue])).toEqual([
      [idDollar, 0.64, "cross", "EUR", 640],
      [idYen, 0.004, "cross", "EUR", 4],
    ]);

    // With USD legs as well (USDJPY, GBPUSD), USD comes first in FX_PIVOT_CURRENCIES (USD,EUR):
    // JPY → USD 1/160 → GBP 1/1.6 = 1/256: 1000 / 256 = 3.90625 → 3.91; USD → GBP is now the inverse of GBPUSD: 625.00.
    await imported(token, "fx-rates", { fxRates: [fx("USD", "JPY", D, 160), fx("GBP", "USD", D, 1.6)] });
    await whenValued(token, portfolio.id);
    const both = await holdingsOf(token, portfolio.id);
    expect(both.holdings.map((h) => [h.securityId, h.fxMethod, h.fxPivot, h.marketValue])).toEqual([
      [idDollar, "inverse", null, 625],
      [idYen, "cross", "USD", 3.91],
    ]);
  });
});
