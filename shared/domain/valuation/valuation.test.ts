import { describe, expect, it } from "vitest";
import type { FxTable } from "./fx";
import type { PricePoint } from "./price-selection";
import { valuePortfolio, type SecurityInfo, type ValuationInput } from "./valuation";

const DATE = "2024-03-15";

const security = (id: string, currency: string, extra: Partial<SecurityInfo> = {}): SecurityInfo => ({
  id,
  name: `Name ${id}`,
  assetClass: "equity",
  currency,
  ...extra,
});
const price = (date: string, type: PricePoint["type"], value: number, currency: string): PricePoint => ({
  date,
  type,
  price: value,
  currency,
  source: "feed",
});

const fx: FxTable = new Map([
  ["EURUSD", [{ date: "2024-03-14", rate: 1.25 }]], // USD → EUR inverse: 0.8
  ["CHFEUR", [{ date: "2024-03-15", rate: 1.05 }]], // CHF → EUR direct
  ["USDJPY", [{ date: "2024-03-13", rate: 160 }]], // JPY → EUR cross: 1 / (160 × 1.25) = 0.005
]);

function input(overrides: Partial<ValuationInput>): ValuationInput {
  return {
    portfolioId: "P1",
    baseCurrency: "EUR",
    date: DATE,
    positions: [],
    securities: new Map(),
    prices: new Map(),
    fx,
    pricePreference: ["close", "nav", "mid"],
    staleAfterDays: 5,
    fxPivots: ["USD", "EUR"],
    ...overrides,
  };
}

describe("valuePortfolio across currencies", () => {
  const securities = new Map(
    [
      security("S-USD", "USD", { isin: "US0378331005" }),
      security("S-CHF", "CHF", { assetClass: "bond" }),
      security("S-JPY", "JPY", { assetClass: "fund" }),
      security("S-EUR", "EUR"),
      security("S-SEK", "SEK"),
      security("S-NOPRICE", "EUR"),
      security("S-ZERO", "EUR"),
    ].map((s) => [s.id, s]),
  );
  const prices = new Map<string, PricePoint[]>([
    ["S-USD", [price("2024-03-15", "close", 150.25, "USD")]],
    ["S-CHF", [price("2024-03-14", "close", 98.765, "CHF")]],
    ["S-JPY", [price("2024-03-01", "nav", 3333, "JPY")]],
    ["S-EUR", [price("2024-03-14", "close", 10, "EUR"), price("2024-03-15", "mid", 10.1, "EUR")]],
    ["S-SEK", [price("2024-03-15", "close", 55, "SEK")]],
    ["S-ZERO", [price("2024-03-15", "close", 1, "EUR")]],
  ]);
  const valuation = valuePortfolio(
    input({
      securities,
      prices,
      positions: [
        { securityId: "S-USD", quantity: 10 },
        { securityId: "S-CHF", quantity: 1000 },
        { securityId: "S-JPY", quantity: 7 },
        { securityId: "S-EUR", quantity: 3 },
        { securityId: "S-SEK", quantity: 2 },
        { securityId: "S-NOPRICE", quantity: 4 },
        { securityId: "S-UNKNOWN", quantity: 1 },
        { securityId: "S-USD", quantity: 5 }, // a second member of a composite
        { securityId: "S-ZERO", quantity: 5 },
        { securityId: "S-ZERO", quantity: -5 },
        { securityId: "S-NOPRICE", quantity: 1 },
      ],
    }),
  );
  const byId = new Map(valuation.holdings.map((h) => [h.securityId, h]));

  it("values each holding with the right rate and method", () => {
    // 1000 × 98.765 × 1.05 (direct)
    expect(byId.get("S-CHF")).toMatchObject({
      marketValue: 103703.25,
      fxRate: 1.05,
      fxMethod: "direct",
      assetClass: "bond",
    });
    // (10 + 5) × 150.25 × 0.8 (inverse of EURUSD 1.25)
    expect(byId.get("S-USD")).toEqual({
      securityId: "S-USD",
      isin: "US0378331005",
      name: "Name S-USD",
      assetClass: "equity",
      quantity: 15,
      price: 150.25,
      priceDate: "2024-03-15",
      priceType: "close",
      priceCurrency: "USD",
      fxRate: 0.8,
      fxMethod: "inverse",
      fxPivot: null,
      marketValue: 1803,
      weight: 0.01706526,
      unvalued: null,
    });
    // 7 × 3333 × 0.005 = 116.655, rounded half up (cross JPY → USD → EUR)
    expect(byId.get("S-JPY")).toMatchObject({
      marketValue: 116.66,
      fxRate: 0.005,
      fxMethod: "cross",
      fxPivot: "USD",
      unvalued: null,
    });
    // The 15th's mid beats the 14th's close: freshness wins over type.
    expect(byId.get("S-EUR")).toMatchObject({
      price: 10.1,
      priceType: "mid",
      marketValue: 30.3,
      fxRate: 1,
      fxMethod: "identity",
    });
  });

  it("totals the rounded values exactly and weighs against that total", () => {
    expect(valuation.totalValue).toBe(105653.21);
    expect(valuation.holdings.map((h) => [h.securityId, h.weight])).toEqual([
      ["S-CHF", 0.98154377],
      ["S-USD", 0.01706526],
      ["S-JPY", 0.00110418],
      ["S-EUR", 0.00028679],
      ["S-NOPRICE", null],
      ["S-SEK", null],
      ["S-UNKNOWN", null],
    ]);
  });

  it("lists what it cannot value, without a value, saying why; the valuation says it is incomplete", () => {
    expect(byId.get("S-SEK")).toMatchObject({
      price: 55,
      priceCurrency: "SEK",
      fxRate: null,
      fxMethod: null,
      fxPivot: null,
      marketValue: null,
      weight: null,
      unvalued: "MISSING_FX_RATE",
    });
    expect(byId.get("S-NOPRICE")).toMatchObject({
      quantity: 5,
      price: null,
      priceDate: null,
      marketValue: null,
      unvalued: "MISSING_PRICE",
    });
    expect(byId.get("S-UNKNOWN")).toMatchObject({
      name: "S-UNKNOWN",
      isin: null,
      marketValue: null,
      unvalued: "UNKNOWN_SECURITY",
    });
    expect(byId.has("S-ZERO")).toBe(false);
    expect(valuation).toMatchObject({ complete: false, unvaluedCount: 3 });
  });

  it("reports each problem once", () => {
    expect(valuation.issues).toEqual([
      { type: "STALE_PRICE", securityId: "S-JPY", date: DATE, priceDate: "2024-03-01", ageDays: 14 },
      { type: "MISSING_PRICE", securityId: "S-NOPRICE", date: DATE },
      { type: "MISSING_FX_RATE", from: "SEK", to: "EUR", date: DATE, securityId: "S-SEK" },
      { type: "UNKNOWN_SECURITY", securityId: "S-UNKNOWN", date: DATE },
    ]);
  });
});

describe("valuePortfolio arithmetic", () => {
  const eur = (ids: string[]): Map<string, SecurityInfo> => new Map(ids.map((id) => [id, security(id, "EUR")]));

  it("sums ten 0.1 × 3 holdings to exactly 3", () => {
    const ids = Array.from({ length: 10 }, (_, i) => `T${i}`);
    const valuation = valuePortfolio(
      input({
        securities: eur(ids),
        prices: new Map(ids.map((id) => [id, [price(DATE, "close", 0.1, "EUR")]])),
        positions: ids.map((securityId) => ({ securityId, quantity: 3 })),
      }),
    );
    expect(valuation.holdings.map((h) => h.marketValue)).toEqual(Array(10).fill(0.3));
    expect(valuation.totalValue).toBe(3); // adding 0.3 ten times in floats gives 2.9999999999999996
    expect(valuation.holdings.map((h) => h.weight)).toEqual(Array(10).fill(0.1));
  });

  it("sums 33.33 + 33.33 + 33.34 to exactly 100 and 0.1 + 0.2 to exactly 0.3", () => {
    const split = valuePortfolio(
      input({
        securities: eur(["A", "B", "C"]),
        prices: new Map([
          ["A", [price(DATE, "close", 33.33, "EUR")]],
          ["B", [price(DATE, "close", 33.34, "EUR")]],
          ["C", [price(DATE, "close", 33.33, "EUR")]],
        ]),
        positions: ["A", "B", "C"].map((securityId) => ({ securityId, quantity: 1 })),
      }),
    );
    expect(split.totalValue).toBe(100);
    expect(split.holdings.map((h) => [h.securityId, h.weight])).toEqual([
      ["B", 0.3334],
      ["A", 0.3333],
      ["C", 0.3333],
    ]);

    const small = valuePortfolio(
      input({
        securities: eur(["A", "B"]),
        prices: new Map([
          ["A", [price(DATE, "close", 0.1, "EUR")]],
          ["B", [price(DATE, "close", 0.2, "EUR")]],
        ]),
        positions: [
          { securityId: "A", quantity: 1 },
          { securityId: "B", quantity: 1 },
        ],
      }),
    );
    expect(small.totalValue).toBe(0.3);
  });

  it("sums duplicate quantities exactly", () => {
    const valuation = valuePortfolio(
      input({
        securities: eur(["A"]),
        prices: new Map([["A", [price(DATE, "close", 10, "EUR")]]]),
        positions: [
          { securityId: "A", quantity: 0.1 },
          { securityId: "A", quantity: 0.2 },
        ],
      }),
    );
    expect(valuation.holdings).toMatchObject([{ securityId: "A", quantity: 0.3, marketValue: 3, weight: 1 }]);
  });

  it("reports stale only beyond the allowed age, and still values the holding", () => {
    const at = (priceDate: string) =>
      valuePortfolio(
        input({
          securities: eur(["A"]),
          prices: new Map([["A", [price(priceDate, "close", 2, "EUR")]]]),
          positions: [{ securityId: "A", quantity: 1 }],
        }),
      );
    expect(at("2024-03-10").issues).toEqual([]); // 5 days: allowed
    const stale = at("2024-03-09");
    expect(stale.issues).toEqual([
      { type: "STALE_PRICE", securityId: "A", date: DATE, priceDate: "2024-03-09", ageDays: 6 },
    ]);
    expect(stale.totalValue).toBe(2);
  });

  it("gives null weights when the total is zero", () => {
    const valuation = valuePortfolio(
      input({
        securities: eur(["LONG", "SHORT"]),
        prices: new Map([
          ["LONG", [price(DATE, "close", 10, "EUR")]],
          ["SHORT", [price(DATE, "close", 10, "EUR")]],
        ]),
        positions: [
          { securityId: "LONG", quantity: 1 },
          { securityId: "SHORT", quantity: -1 },
        ],
      }),
    );
    expect(valuation.totalValue).toBe(0);
    expect(valuation.holdings.map((h) => [h.securityId, h.marketValue, h.weight])).toEqual([
      ["LONG", 10, null],
      ["SHORT", -10, null],
    ]);
  });

  it("values an empty portfolio at zero", () => {
    expect(valuePortfolio(input({}))).toEqual({
      portfolioId: "P1",
      date: DATE,
      complete: true,
      unvaluedCount: 0,
      baseCurrency: "EUR",
      totalValue: 0,
      holdings: [],
      issues: [],
    });
  });
});

describe("valuePortfolio with out-of-range stored data", () => {
  it("lists the holding unvalued with a VALUE_OUT_OF_RANGE issue instead of throwing, and values the rest", () => {
    const valuation = valuePortfolio(
      input({
        positions: [
          { securityId: "HUGE", quantity: 1e307 },
          { securityId: "OK", quantity: 3 },
        ],
        securities: new Map([
          ["HUGE", security("HUGE", "EUR")],
          ["OK", security("OK", "EUR")],
        ]),
        prices: new Map([
          ["HUGE", [price(DATE, "close", 100, "EUR")]],
          ["OK", [price(DATE, "close", 10, "EUR")]],
        ]),
      }),
    );
    expect(valuation.totalValue).toBe(30);
    expect(valuation.holdings.map((h) => [h.securityId, h.marketValue, h.weight])).toEqual([
      ["OK", 30, 1],
      ["HUGE", null, null],
    ]);
    expect(valuation.issues).toEqual([{ type: "VALUE_OUT_OF_RANGE", securityId: "HUGE", date: DATE }]);
  });
});

describe("valuePortfolio with finite values that would overflow their sum", () => {
  it("leaves values above 1e300 out, so the total stays a finite number", () => {
    const valuation = valuePortfolio(
      input({
        positions: [
          { securityId: "A", quantity: 1.5e308 },
          { securityId: "B", quantity: 1.5e308 },
        ],
        securities: new Map([
          ["A", security("A", "EUR")],
          ["B", security("B", "EUR")],
        ]),
        prices: new Map([
          ["A", [price(DATE, "close", 1, "EUR")]],
          ["B", [price(DATE, "close", 1, "EUR")]],
        ]),
      }),
    );
    expect(valuation.totalValue).toBe(0);
    expect(valuation.issues.map((i) => [i.type, "securityId" in i ? i.securityId : ""])).toEqual([
      ["VALUE_OUT_OF_RANGE", "A"],
      ["VALUE_OUT_OF_RANGE", "B"],
    ]);
  });
});

describe("valuePortfolio in the base currency's minor units", () => {
  const one = (baseCurrency: string, quantity: number, value: number) =>
    valuePortfolio(
      input({
        baseCurrency,
        fx: new Map(),
        positions: [{ securityId: "S", quantity }],
        securities: new Map([["S", security("S", baseCurrency)]]),
        prices: new Map([["S", [price(DATE, "close", value, baseCurrency)]]]),
      }),
    );

  it("rounds JPY to whole yen, KWD to fils and EUR to cents", () => {
    expect(one("JPY", 3, 100.5).totalValue).toBe(302); // 301.5 → 302
    expect(one("KWD", 3, 0.3335).totalValue).toBe(1.001); // 1.0005 → 1.001
    expect(one("EUR", 3, 0.3335).totalValue).toBe(1); // 1.0005 → 1.00
  });
});
