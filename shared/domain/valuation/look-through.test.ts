import Decimal from "decimal.js";
import { describe, expect, it } from "vitest";
import type { FxTable } from "./fx";
import { lookThrough, type FundValuation, type LookThroughContext } from "./look-through";
import type { Holding } from "./valuation";

const DATE = "2024-06-28";

function holding(securityId: string, marketValue: number | null, extra: Partial<Holding> = {}): Holding {
  return {
    securityId,
    isin: null,
    name: `Name ${securityId}`,
    assetClass: "equity",
    quantity: 1,
    price: marketValue,
    priceDate: DATE,
    priceType: "close",
    priceCurrency: "EUR",
    fxRate: 1,
    fxMethod: "identity",
    fxPivot: null,
    marketValue,
    weight: null,
    unvalued: marketValue === null ? "MISSING_PRICE" : null,
    ...extra,
  };
}

function context(
  funds: Record<string, string>,
  valuations: FundValuation[],
  fx: FxTable = new Map(),
  extra: Partial<LookThroughContext> = {},
): LookThroughContext {
  const byId = new Map(valuations.map((v) => [v.portfolioId, v]));
  return {
    baseCurrency: "EUR",
    date: DATE,
    fundOf: (securityId) => funds[securityId],
    fundValuation: (portfolioId) => byId.get(portfolioId),
    fx,
    fxPivots: ["USD", "EUR"],
    ...extra,
  };
}

const fund = (portfolioId: string, baseCurrency: string, holdings: Holding[]): FundValuation => ({
  portfolioId,
  baseCurrency,
  totalValue: holdings.reduce((sum, h) => sum.plus(h.marketValue ?? 0), new Decimal(0)).toNumber(),
  holdings,
});

const rows = (holdings: Holding[]) =>
  holdings.map((h) => [h.securityId, h.via?.join(">") ?? "", h.quantity, h.marketValue, h.weight]);

describe("lookThrough one level", () => {
  const fundA = fund("PF-A", "EUR", [
    holding("A1", 1500, { quantity: 100 }),
    holding("A2", 1000, { quantity: 50, priceCurrency: "USD", fxRate: 0.8, fxMethod: "inverse" }),
    holding("EQ-X", 500, { quantity: 7 }),
  ]);
  const result = lookThrough(
    [holding("FUND-A", 1000, { quantity: 10, assetClass: "fund" }), holding("EQ-X", 500, { quantity: 3 })],
    context({ "FUND-A": "PF-A" }, [fundA]),
  );

  it("replaces the fund by a third of its holdings, keeping separate paths apart", () => {
    // fraction 1000 / 3000; allocate(1000, [1500, 1000, 500]) = 500, 333.33, 166.67
    expect(rows(result)).toEqual([
      ["A1", "FUND-A", 33.33333333, 500, 0.33333333],
      ["EQ-X", "", 3, 500, 0.33333333],
      ["A2", "FUND-A", 16.66666667, 333.33, 0.22222],
      ["EQ-X", "FUND-A", 2.33333333, 166.67, 0.11111333],
    ]);
  });

  it("keeps the child's price and scales its FX rate into the portfolio base", () => {
    expect(result[2]).toMatchObject({
      name: "Name A2",
      price: 1000,
      priceCurrency: "USD",
      fxRate: 0.8,
      fxMethod: "inverse",
      via: ["FUND-A"],
    });
    expect(result[1]?.via).toBeUndefined();
  });

  it("keeps the total exact: children add up to their parent to the cent", () => {
    const even = fund("PF-E", "EUR", [holding("E1", 1), holding("E2", 1), holding("E3", 1)]);
    const out = lookThrough([holding("FUND-E", 100)], context({ "FUND-E": "PF-E" }, [even]));
    expect(out.map((h) => h.marketValue)).toEqual([33.34, 33.33, 33.33]);
    expect(out.reduce((sum, h) => sum.plus(h.marketValue ?? 0), new Decimal(0)).toString()).toBe("100");
  });
});

describe("lookThrough two levels with FX between fund and portfolio", () => {
  const fx: FxTable = new Map([
    ["EURUSD", [{ date: DATE, rate: 1.25 }]], // USD → EUR 0.8 (inverse)
    ["GBPUSD", [{ date: DATE, rate: 1.3 }]], // GBP → EUR 1.3 × 0.8 = 1.04 (cross)
  ]);
  const fund1 = fund("PF-1", "USD", [
    holding("B1", 1500, { quantity: 30, priceCurrency: "USD" }),
    holding("FUND-2", 500, { quantity: 5, priceCurrency: "USD", assetClass: "fund" }),
  ]);
  const fund2 = fund("PF-2", "GBP", [
    holding("C1", 600, { quantity: 12, priceCurrency: "GBP" }),
    holding("C2", 400, { quantity: 50, priceCurrency: "USD", fxRate: 0.8, fxMethod: "inverse" }),
  ]);
  const result = lookThrough(
    [holding("FUND-1", 800), holding("D", 200)],
    context({ "FUND-1": "PF-1", "FUND-2": "PF-2" }, [fund1, fund2], fx),
  );

  it("expands the nested fund pro rata at each level", () => {
    // PF-1 is worth 2000 USD = 1600 EUR, so FUND-1 is half of it: B1 600, FUND-2 200.
    // PF-2 is worth 1000 GBP = 1040 EUR, so FUND-2 is 200/1040 of it: C1 120, C2 80.
    expect(rows(result)).toEqual([
      ["B1", "FUND-1", 15, 600, 0.6],
      ["D", "", 1, 200, 0.2],
      ["C1", "FUND-1>FUND-2", 2.30769231, 120, 0.12],
      ["C2", "FUND-1>FUND-2", 9.61538462, 80, 0.08],
    ]);
  });

  it("multiplies the child's rate by the fund's rate into the portfolio base", () => {
    const rates = result.map((h) => [h.securityId, h.fxRate, h.fxMethod]);
    expect(rates).toEqual([
      ["B1", 0.8, "inverse"],
      ["D", 1, "identity"],
      ["C1", 1.04, "cross"],
      ["C2", 0.832, "cross"],
    ]);
  });
});

describe("lookThrough cycles", () => {
  it("stops when a fund holds a fund that holds the first one", () => {
    const fa = fund("PF-A", "EUR", [holding("FB", 60, { quantity: 6 }), holding("Z", 40, { quantity: 4 })]);
    const fb = fund("PF-B", "EUR", [holding("FA", 25, { quantity: 2.5 }), holding("W", 25, { quantity: 10 })]);
    const result = lookThrough([holding("FA", 100)], context({ FA: "PF-A", FB: "PF-B" }, [fa, fb]));
    // FA is all of PF-A; FB (60) is 1.2 times PF-B (50); FA inside PF-B is left as a holding.
    expect(rows(result)).toEqual([
      ["Z", "FA", 4, 40, 0.4],
      ["FA", "FA>FB", 3, 30, 0.3],
      ["W", "FA>FB", 12, 30, 0.3],
    ]);
  });

  it("stops at a fund portfolio already on the path under another security", () => {
    const pa = fund("PF-A", "EUR", [holding("Z", 50), holding("FA-2", 50)]);
    const result = lookThrough([holding("FA-1", 100)], context({ "FA-1": "PF-A", "FA-2": "PF-A" }, [pa]));
    expect(rows(result)).toEqual([
      ["FA-2", "FA-1", 1, 50, 0.5], // the whole of PF-A: fraction 1
      ["Z", "FA-1", 1, 50, 0.5],
    ]);
  });

  it("does not expand a fund that leads back to the portfolio itself", () => {
    const self = fund("P", "EUR", [holding("Z", 10)]);
    const ctx = context({ SELF: "P" }, [self], new Map(), { portfolioId: "P" });
    expect(rows(lookThrough([holding("SELF", 10)], ctx))).toEqual([["SELF", "", 1, 10, 1]]);
  });
});

describe("lookThrough leaves alone what it cannot expand", () => {
  const funds = { NOVAL: "PF-NONE", ZERO: "PF-ZERO", NOFX: "PF-JPY", NULL: "PF-OK", WORTHLESS: "PF-OK" };
  const valuations = [
    fund("PF-ZERO", "EUR", [holding("L", 10), holding("S", -10)]),
    fund("PF-JPY", "JPY", [holding("J", 10)]),
    fund("PF-OK", "EUR", [holding("K", 10)]),
  ];
  const input = [
    holding("NOVAL", 40),
    holding("ZERO", 30),
    holding("NOFX", 20),
    holding("NULL", null),
    holding("WORTHLESS", 0),
    holding("PLAIN", 10),
  ];

  it("keeps the rows and only recomputes weights", () => {
    const result = lookThrough(input, context(funds, valuations));
    expect(result).toEqual([
      { ...holding("NOVAL", 40), weight: 0.4 },
      { ...holding("ZERO", 30), weight: 0.3 },
      { ...holding("NOFX", 20), weight: 0.2 },
      { ...holding("PLAIN", 10), weight: 0.1 },
      { ...holding("WORTHLESS", 0), weight: 0 },
      { ...holding("NULL", null), weight: null },
    ]);
  });

  it("carries unvalued fund children through with a scaled quantity and no value", () => {
    const mixed = fund("PF-M", "EUR", [
      holding("V", 90, { quantity: 9 }),
      holding("U", null, { quantity: 4, fxRate: null, fxMethod: null }),
    ]);
    const result = lookThrough([holding("M", 45)], context({ M: "PF-M" }, [mixed]));
    expect(rows(result)).toEqual([
      ["V", "M", 4.5, 45, 1],
      ["U", "M", 2, null, null],
    ]);
  });
});

describe("lookThrough in currencies without cents", () => {
  it("allocates a JPY parent in whole yen, still summing to the parent exactly", () => {
    const fundJ = fund("PF-J", "JPY", [
      holding("J1", 1000, { priceCurrency: "JPY" }),
      holding("J2", 1000, { priceCurrency: "JPY" }),
      holding("J3", 1000, { priceCurrency: "JPY" }),
    ]);
    const out = lookThrough(
      [holding("FUND-J", 100, { priceCurrency: "JPY" })],
      context({ "FUND-J": "PF-J" }, [fundJ], new Map(), { baseCurrency: "JPY" }),
    );
    expect(out.map((h) => h.marketValue)).toEqual([34, 33, 33]);
  });

  it("allocates a KWD parent in fils", () => {
    const fundK = fund("PF-K", "KWD", [
      holding("K1", 1, { priceCurrency: "KWD" }),
      holding("K2", 2, { priceCurrency: "KWD" }),
    ]);
    const out = lookThrough(
      [holding("FUND-K", 1, { priceCurrency: "KWD" })],
      context({ "FUND-K": "PF-K" }, [fundK], new Map(), { baseCurrency: "KWD" }),
    );
    expect(out.map((h) => h.marketValue)).toEqual([0.667, 0.333]);
  });
});
