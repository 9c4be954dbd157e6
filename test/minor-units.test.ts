import Decimal from "decimal.js";
import { beforeAll, describe, expect, it } from "vitest";
import { adminToken } from "./http";
import {
  createPortfolio,
  createSecurities,
  holdingsOf,
  imported,
  price,
  securityRecord,
  whenValued,
} from "./investment-fixtures";

let token: string;
beforeAll(async () => {
  token = await adminToken();
});

const DATE = "2017-05-02";

/** A portfolio in `base` holding one security in `base` and one in USD, valued on DATE. */
async function valued(base: string, local: { price: number; quantity: number }, usdRate: number) {
  const portfolio = await createPortfolio(token, { baseCurrency: base });
  const inBase = securityRecord({ currency: base });
  const inUsd = securityRecord({ currency: "USD" });
  const [baseId, usdId] = await createSecurities(token, [inBase, inUsd]);
  await imported(token, "fx-rates", {
    fxRates: [{ baseCurrency: "USD", quoteCurrency: base, date: DATE, rate: usdRate, source: "test" }],
  });
  await imported(token, "prices", {
    prices: [
      price(inBase.isin, DATE, local.price, { currency: base }),
      price(inUsd.isin, DATE, 10.01, { currency: "USD" }),
    ],
  });
  await imported(token, "positions", {
    positions: [
      { portfolioId: portfolio.id, securityId: baseId, date: DATE, quantity: local.quantity },
      { portfolioId: portfolio.id, securityId: usdId, date: DATE, quantity: 7 },
    ],
  });
  await whenValued(token, portfolio.id);
  const view = await holdingsOf(token, portfolio.id, `date=${DATE}`);
  return { view, baseId, usdId };
}

const sumOf = (values: (number | null)[]): string =>
  values.reduce((s: Decimal, v) => s.plus(v ?? 0), new Decimal(0)).toString();

describe("holdings in the base currency's minor units", () => {
  it("values a JPY portfolio in whole yen, the holdings summing exactly to totalValue", async () => {
    const { view, baseId, usdId } = await valued("JPY", { price: 1234.5, quantity: 3 }, 151.37);
    const values = Object.fromEntries(view.holdings.map((h) => [h.securityId, h.marketValue]));
    // 3 × 1234.5 = 3703.5 → 3704; 7 × 10.01 USD × 151.37 = 10606.4959 → 10606
    expect(values).toEqual({ [baseId]: 3704, [usdId]: 10606 });
    expect(view.totalValue).toBe(14310);
    expect(sumOf(view.holdings.map((h) => h.marketValue))).toBe(String(view.totalValue));
  });

  it("values a KWD portfolio in fils (3 decimals), the holdings summing exactly to totalValue", async () => {
    const { view, baseId, usdId } = await valued("KWD", { price: 1.2345, quantity: 3 }, 0.3071);
    const values = Object.fromEntries(view.holdings.map((h) => [h.securityId, h.marketValue]));
    // 3 × 1.2345 = 3.7035 → 3.704; 7 × 10.01 USD × 0.3071 = 21.518497 → 21.518
    expect(values).toEqual({ [baseId]: 3.704, [usdId]: 21.518 });
    expect(view.totalValue).toBe(25.222);
    expect(sumOf(view.holdings.map((h) => h.marketValue))).toBe(String(view.totalValue));
  });
});
