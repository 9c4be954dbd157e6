import { describe, expect, it } from "vitest";
import { priceReach } from "./price-reach";
import { selectPrice, type PricePoint } from "./price-selection";

const point = (date: string, type: PricePoint["type"] = "close", source = "a", price = 10): PricePoint => ({
  date,
  type,
  source,
  price,
  currency: "EUR",
});

describe("priceReach: the dates a new price can be chosen on", () => {
  const stored = new Map([["S1", [point("2024-06-28"), point("2024-07-05", "mid", "b")]]]);

  it("ends an older price's reach at the newest stored price of its type; a newer one (or another type's) reaches on", () => {
    expect(priceReach([{ ...point("2020-01-02"), securityId: "S1" }], stored)).toEqual([
      { securityId: "S1", from: "2020-01-02", until: "2024-06-28" },
    ]);
    expect(priceReach([{ ...point("2024-06-28"), securityId: "S1" }], stored)).toEqual([
      { securityId: "S1", from: "2024-06-28" },
    ]);
    expect(priceReach([{ ...point("2024-07-01", "bid"), securityId: "S1" }], stored)).toEqual([
      { securityId: "S1", from: "2024-07-01" },
    ]);
    expect(priceReach([{ ...point("2020-01-02"), securityId: "S2" }], stored)).toEqual([
      { securityId: "S2", from: "2020-01-02" },
    ]);
  });

  it("takes a security's earliest start and its latest end over its prices", () => {
    const prices = [
      { ...point("2021-01-04"), securityId: "S1" },
      { ...point("2020-01-02", "mid"), securityId: "S1" },
    ];
    expect(priceReach(prices, stored)).toEqual([{ securityId: "S1", from: "2020-01-02", until: "2024-07-05" }]);
    expect(priceReach([...prices, { ...point("2025-01-02"), securityId: "S1" }], stored)).toEqual([
      { securityId: "S1", from: "2020-01-02" },
    ]);
  });

  it("agrees with selectPrice: outside its reach a new price is never the one chosen", () => {
    const kept = stored.get("S1") ?? [];
    const added = point("2020-01-02", "close", "z", 99);
    const [reach] = priceReach([{ ...added, securityId: "S1" }], stored);
    for (const date of ["2024-06-28", "2024-07-04", "2025-12-31"]) {
      expect(reach?.until !== undefined && date >= reach.until).toBe(true);
      expect(selectPrice([...kept, added], date, ["close", "mid"])).toEqual(selectPrice(kept, date, ["close", "mid"]));
    }
  });
});
