import Decimal from "decimal.js";
import { describe, expect, it } from "vitest";
import { allocate, roundMoney, toDecimal, toNumber } from "./money";

const d = (values: string[]): Decimal[] => values.map((v) => new Decimal(v));
const text = (parts: Decimal[]): string[] => parts.map((p) => p.toFixed(2));
const sum = (parts: Decimal[]): Decimal => parts.reduce((a, p) => a.plus(p), new Decimal(0));

describe("toDecimal / roundMoney / toNumber", () => {
  it("takes a number at its printed value", () => {
    expect(toDecimal(0.1).toString()).toBe("0.1");
    expect(toDecimal(0.1).plus(toDecimal(0.2)).toString()).toBe("0.3");
    expect(toDecimal(1e-7).eq("0.0000001")).toBe(true);
    expect(() => toDecimal(Number.NaN)).toThrow(RangeError);
    expect(() => toDecimal(Number.POSITIVE_INFINITY)).toThrow(RangeError);
  });

  it("rounds half away from zero where binary floats would not", () => {
    expect(toNumber(roundMoney(toDecimal(1.005), "EUR"))).toBe(1.01); // Math.round(1.005 * 100) / 100 is 1
    expect(toNumber(roundMoney(toDecimal(2.345), "EUR"))).toBe(2.35);
    expect(toNumber(roundMoney(toDecimal(-2.345), "EUR"))).toBe(-2.35);
    expect(toNumber(roundMoney(toDecimal(2.344), "EUR"))).toBe(2.34);
  });

  it("never returns -0", () => {
    expect(Object.is(toNumber(roundMoney(toDecimal(-0.001), "EUR")), 0)).toBe(true);
  });
});

describe("allocate", () => {
  it("splits 100.00 in three as 33.34 + 33.33 + 33.33", () => {
    const parts = allocate(new Decimal("100.00"), d(["1", "1", "1"]));
    expect(text(parts)).toEqual(["33.34", "33.33", "33.33"]);
    expect(sum(parts).eq(100)).toBe(true);
  });

  it("gives the leftover cents to the largest remainders", () => {
    // 1000 cents × (1/6, 2/6, 3/6) = 166.67, 333.33, 500 cents → 167, 333, 500 after remainders.
    expect(text(allocate(new Decimal("10.00"), d(["1", "2", "3"])))).toEqual(["1.67", "3.33", "5.00"]);
    // 1000 cents × (1/3, 2/3): 333 r1, 666 r2 → the second gets the cent.
    expect(text(allocate(new Decimal("10"), d(["0", "1", "0", "2"])))).toEqual(["0.00", "3.33", "0.00", "6.67"]);
  });

  it("mirrors negative totals exactly", () => {
    const parts = allocate(new Decimal("-100"), d(["1", "1", "1"]));
    expect(text(parts)).toEqual(["-33.34", "-33.33", "-33.33"]);
    expect(sum(parts).eq(-100)).toBe(true);
  });

  it("handles negative weights whose sum is not zero", () => {
    expect(text(allocate(new Decimal("10"), d(["3", "-1"])))).toEqual(["15.00", "-5.00"]);
    // Exact shares 0.666…, -0.333…, 0.666…: floors 66, -34, 66 cents with equal remainders.
    const parts = allocate(new Decimal("1"), d(["2", "-1", "2"]));
    expect(text(parts)).toEqual(["0.67", "-0.33", "0.66"]);
    expect(sum(parts).eq(1)).toBe(true);
  });

  it("splits evenly when every weight is zero, and returns zeros for a zero total", () => {
    expect(text(allocate(new Decimal("0.10"), d(["0", "0", "0"])))).toEqual(["0.04", "0.03", "0.03"]);
    expect(text(allocate(new Decimal("0"), d(["0", "5"])))).toEqual(["0.00", "0.00"]);
    expect(allocate(new Decimal("0"), [])).toEqual([]);
  });

  it("rejects what it cannot split exactly", () => {
    expect(() => allocate(new Decimal("1.005"), d(["1"]))).toThrow(RangeError);
    expect(() => allocate(new Decimal("1"), [])).toThrow(RangeError);
    expect(() => allocate(new Decimal("1"), d(["1", "-1"]))).toThrow(RangeError);
  });

  it("always sums exactly and stays within a cent of the exact share", () => {
    let seed = 42;
    const random = (): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    for (let round = 0; round < 200; round++) {
      const total = new Decimal(Math.floor(random() * 2_000_000) - 1_000_000).div(100);
      const weights = Array.from({ length: 1 + Math.floor(random() * 12) }, () => new Decimal(random().toFixed(6)));
      const weightSum = sum(weights);
      if (weightSum.isZero()) continue;
      const parts = allocate(total, weights);
      expect(sum(parts).eq(total)).toBe(true);
      parts.forEach((part, i) => {
        const exact = total.times(weights[i] ?? 0).div(weightSum);
        expect(part.minus(exact).abs().lt("0.01")).toBe(true);
        expect(part.decimalPlaces()).toBeLessThanOrEqual(2);
      });
    }
  });
});

describe("money in each currency's minor units", () => {
  it("rounds JPY to whole yen, EUR to cents and KWD to fils, half away from zero", () => {
    expect(toNumber(roundMoney(toDecimal(1234.5), "JPY"))).toBe(1235);
    expect(toNumber(roundMoney(toDecimal(-1234.5), "JPY"))).toBe(-1235);
    expect(toNumber(roundMoney(toDecimal(1234.567), "EUR"))).toBe(1234.57);
    expect(toNumber(roundMoney(toDecimal(1.2345), "KWD"))).toBe(1.235);
    expect(toNumber(roundMoney(toDecimal(1.2344), "KWD"))).toBe(1.234);
  });

  it("allocates in whole yen and whole fils, summing exactly", () => {
    const yen = allocate(new Decimal("100"), d(["1", "1", "1"]), 0);
    expect(yen.map((p) => p.toString())).toEqual(["34", "33", "33"]);
    const fils = allocate(new Decimal("10.000"), d(["1", "2", "3"]), 3);
    expect(fils.map((p) => p.toString())).toEqual(["1.667", "3.333", "5"]);
    expect(sum(fils).eq("10")).toBe(true);
    expect(() => allocate(new Decimal("1.5"), d(["1"]), 0)).toThrow(RangeError);
    expect(() => allocate(new Decimal("1.0005"), d(["1"]), 3)).toThrow(RangeError);
  });
});
