import { describe, expect, it } from "vitest";
import { completeHolding, type StoredHolding } from "./stored-holding";

const stored = (over: Partial<StoredHolding>): StoredHolding => ({
  securityId: "S",
  isin: null,
  name: "S",
  assetClass: "equity",
  quantity: 1,
  price: 10,
  priceDate: "2024-01-02",
  priceType: "close",
  priceCurrency: "JPY",
  fxRate: 0.006,
  fxMethod: "cross",
  marketValue: 0.06,
  weight: 1,
  ...over,
});

describe("completeHolding: holdings stored before unvalued and fxPivot existed", () => {
  it("a cross went through USD, the only pivot there was", () => {
    expect(completeHolding(stored({}))).toMatchObject({ fxPivot: "USD", unvalued: null });
    expect(completeHolding(stored({ fxMethod: "direct" }))).toMatchObject({ fxPivot: null, unvalued: null });
  });

  it("an unvalued one says why from what it carries", () => {
    const none = { marketValue: null, weight: null, fxRate: null, fxMethod: null } as const;
    expect(completeHolding(stored({ ...none, price: null, priceDate: null }))).toMatchObject({
      unvalued: "MISSING_PRICE",
    });
    expect(completeHolding(stored(none))).toMatchObject({ unvalued: "MISSING_FX_RATE", fxPivot: null });
    expect(completeHolding(stored({ marketValue: null, weight: null }))).toMatchObject({
      unvalued: "VALUE_OUT_OF_RANGE",
    });
  });

  it("leaves a holding that has both fields as it is", () => {
    const current = stored({ fxPivot: "EUR", unvalued: null });
    expect(completeHolding(current)).toBe(current);
  });
});
