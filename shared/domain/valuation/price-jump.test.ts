import { describe, expect, it } from "vitest";
import type { PricePoint } from "./price-selection";
import { priceJump } from "./price-jump";

const point = (date: string, price: number, extra: Partial<PricePoint> = {}): PricePoint => ({
  date,
  type: "close",
  price,
  currency: "USD",
  source: "feed",
  ...extra,
});
const previous = point("2024-01-01", 100);

describe("priceJump", () => {
  it.each([
    [125, undefined], // exactly 25% is not beyond it
    [125.01, { change: 0.2501 }],
    [75, undefined],
    [74.99, { change: -0.2501 }],
    [100, undefined],
    [300, { change: 2 }],
  ])("100 → %s with a 25%% threshold gives %j", (price, expected) => {
    expect(priceJump(previous, point("2024-01-02", price), 0.25)).toEqual(expected);
  });

  it("rounds the change to 6 dp", () => {
    const three = point("2024-01-01", 3);
    expect(priceJump(three, point("2024-01-02", 4), 0.25)).toEqual({ change: 0.333333 });
    expect(priceJump(three, point("2024-01-02", 1), 0.25)).toEqual({ change: -0.666667 });
  });

  it("compares only like with like, forwards in time", () => {
    const next = point("2024-01-02", 200);
    expect(priceJump(undefined, next, 0.25)).toBeUndefined();
    expect(priceJump(point("2024-01-01", 100, { type: "mid" }), next, 0.25)).toBeUndefined();
    expect(priceJump(point("2024-01-01", 100, { currency: "EUR" }), next, 0.25)).toBeUndefined();
    expect(priceJump(point("2024-01-02", 100), next, 0.25)).toBeUndefined();
    expect(priceJump(point("2024-01-03", 100), next, 0.25)).toBeUndefined();
    expect(priceJump(point("2024-01-01", 0), next, 0.25)).toBeUndefined();
  });
});
