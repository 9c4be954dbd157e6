import { describe, expect, it } from "vitest";
import { selectPrice, type PricePoint } from "./price-selection";

const point = (date: string, type: PricePoint["type"], price: number, source = "feed"): PricePoint => ({
  date,
  type,
  price,
  currency: "EUR",
  source,
});

describe("selectPrice", () => {
  const points = [
    point("2024-01-05", "close", 105), // after the date
    point("2024-01-02", "close", 100),
    point("2024-01-03", "mid", 101),
    point("2024-01-03", "nav", 102),
    point("2024-01-04", "bid", 103), // not a preferred type
  ];
  const preference = ["close", "nav", "mid"] as const;

  it("takes the freshest date first, then the preferred type on it", () => {
    expect(selectPrice(points, "2024-01-04", preference)?.price).toBe(102);
  });

  it("includes prices on the date itself", () => {
    expect(selectPrice(points, "2024-01-05", preference)?.price).toBe(105);
    expect(selectPrice(points, "2024-01-02", preference)?.price).toBe(100);
  });

  it("follows the order of the preference", () => {
    expect(selectPrice(points, "2024-01-04", ["mid", "nav"])?.price).toBe(101);
    expect(selectPrice(points, "2024-01-04", ["bid", "close"])?.price).toBe(103);
  });

  it("breaks ties by source, whatever the input order", () => {
    const a = point("2024-01-03", "close", 1, "zeta");
    const b = point("2024-01-03", "close", 2, "alpha");
    expect(selectPrice([a, b], "2024-01-03", preference)?.source).toBe("alpha");
    expect(selectPrice([b, a], "2024-01-03", preference)?.source).toBe("alpha");
  });

  it("finds nothing without a preferred price on or before the date", () => {
    expect(selectPrice(points, "2024-01-01", preference)).toBeUndefined();
    expect(selectPrice(points, "2024-01-04", ["ask"])).toBeUndefined();
    expect(selectPrice([], "2024-01-04", preference)).toBeUndefined();
  });
});
