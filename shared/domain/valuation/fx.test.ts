import { describe, expect, it } from "vitest";
import { fxPairsFor, latestOnOrBefore, resolveFx, type FxTable } from "./fx";

const table: FxTable = new Map([
  [
    "EURUSD",
    [
      { date: "2024-01-01", rate: 1.1 },
      { date: "2024-01-03", rate: 1.2 },
    ],
  ],
  ["GBPUSD", [{ date: "2024-01-02", rate: 1.25 }]],
  ["USDJPY", [{ date: "2024-01-01", rate: 150 }]],
  ["EURCHF", [{ date: "2024-01-01", rate: 0.95 }]],
  ["CHFEUR", [{ date: "2024-01-03", rate: 1.06 }]],
  ["EURSEK", [{ date: "2024-01-01", rate: 0 }]],
]);

describe("latestOnOrBefore", () => {
  const points = [
    { date: "2024-01-01", rate: 1 },
    { date: "2024-01-03", rate: 2 },
    { date: "2024-01-03", rate: 3 },
    { date: "2024-01-07", rate: 4 },
  ];
  it.each([
    ["2023-12-31", undefined],
    ["2024-01-01", 1],
    ["2024-01-02", 1],
    ["2024-01-03", 3],
    ["2024-01-06", 3],
    ["2024-02-01", 4],
  ])("on %s picks %s", (date, rate) => {
    expect(latestOnOrBefore(points, date)?.rate).toBe(rate);
  });
  it("copes with an empty list", () => {
    expect(latestOnOrBefore([], "2024-01-01")).toBeUndefined();
  });
});

describe("resolveFx", () => {
  it("is the identity for one currency", () => {
    const fx = resolveFx("EUR", "EUR", "2024-01-01", table);
    expect(fx?.rate.toString()).toBe("1");
    expect(fx?.method).toBe("identity");
    expect(fx?.rateDate).toBeUndefined();
  });

  it("uses the latest direct rate on or before the date", () => {
    const fx = resolveFx("EUR", "USD", "2024-01-02", table);
    expect(fx?.rate.toString()).toBe("1.1");
    expect(fx?.method).toBe("direct");
    expect(fx?.rateDate).toBe("2024-01-01");
    expect(resolveFx("EUR", "USD", "2024-01-03", table)?.rate.toString()).toBe("1.2");
    expect(resolveFx("EUR", "USD", "2023-12-31", table)).toBeUndefined();
  });

  it("inverts the opposite pair to 34 significant digits", () => {
    const fx = resolveFx("USD", "EUR", "2024-01-03", table);
    expect(fx?.rate.toString()).toBe(`0.8${"3".repeat(33)}`);
    expect(fx?.method).toBe("inverse");
    expect(fx?.rateDate).toBe("2024-01-03");
  });

  it("prefers a direct rate to a fresher inverse one", () => {
    const fx = resolveFx("EUR", "CHF", "2024-01-05", table);
    expect(fx?.rate.toString()).toBe("0.95");
    expect(fx?.method).toBe("direct");
  });

  it("crosses through USD with direct legs, dated by the older leg", () => {
    const fx = resolveFx("GBP", "JPY", "2024-01-05", table); // 1.25 × 150
    expect(fx?.rate.toString()).toBe("187.5");
    expect(fx?.method).toBe("cross");
    expect(fx?.rateDate).toBe("2024-01-01");
  });

  it("crosses with a direct and an inverse leg", () => {
    const fx = resolveFx("EUR", "GBP", "2024-01-05", table); // 1.2 / 1.25
    expect(fx?.rate.toString()).toBe("0.96");
    expect(fx?.rateDate).toBe("2024-01-02");
  });

  it("crosses with two inverse legs in a single division", () => {
    const fx = resolveFx("JPY", "EUR", "2024-01-05", table); // 1 / (150 × 1.2) = 1/180
    expect(fx?.rate.toString()).toBe("0.005555555555555555555555555555555556");
    expect(fx?.method).toBe("cross");
  });

  it("finds no path when a leg is missing or unusable", () => {
    expect(resolveFx("AUD", "EUR", "2024-01-05", table)).toBeUndefined();
    expect(resolveFx("USD", "AUD", "2024-01-05", table)).toBeUndefined();
    expect(resolveFx("EUR", "SEK", "2024-01-05", table)).toBeUndefined(); // rate 0
    expect(resolveFx("GBP", "JPY", "2024-01-01", table)).toBeUndefined(); // GBPUSD starts on the 2nd
  });

  it("says which pivot a cross went through", () => {
    expect(resolveFx("GBP", "JPY", "2024-01-05", table)?.pivot).toBe("USD");
    expect(resolveFx("EUR", "USD", "2024-01-05", table)?.pivot).toBeUndefined();
  });
});

describe("resolveFx through configured pivots", () => {
  // ECB style: every rate quoted against EUR.
  const ecb: FxTable = new Map([
    ["EURUSD", [{ date: "2024-01-02", rate: 1.1 }]],
    ["EURGBP", [{ date: "2024-01-03", rate: 0.88 }]],
    ["EURJPY", [{ date: "2024-01-02", rate: 160 }]],
    ["USDJPY", [{ date: "2024-01-02", rate: 150 }]],
    ["GBPUSD", [{ date: "2024-01-01", rate: 1.25 }]],
  ]);

  it("crosses USD → GBP through EUR when USD is one of the two currencies", () => {
    // USD → EUR (inverse of 1.1) → GBP (0.88): 0.88 / 1.1 = 0.8
    const fx = resolveFx("USD", "GBP", "2024-01-05", new Map([...ecb].filter(([p]) => p !== "GBPUSD")));
    expect(fx).toMatchObject({ method: "cross", pivot: "EUR", rateDate: "2024-01-02" });
    expect(fx?.rate.toString()).toBe("0.8");
  });

  it("takes the first pivot in the list for which both legs exist, whatever the table's order", () => {
    // GBP → JPY: through USD 1.25 × 150 = 187.5; through EUR (1 / 0.88) × 160 = 181.81…
    expect(resolveFx("GBP", "JPY", "2024-01-05", ecb, ["USD", "EUR"])).toMatchObject({ pivot: "USD" });
    expect(resolveFx("GBP", "JPY", "2024-01-05", ecb, ["USD", "EUR"])?.rate.toString()).toBe("187.5");
    expect(resolveFx("GBP", "JPY", "2024-01-05", ecb, ["EUR", "USD"])).toMatchObject({ pivot: "EUR" });
    // A pivot whose legs are missing is passed over.
    expect(resolveFx("GBP", "JPY", "2024-01-05", ecb, ["CHF", "EUR"])).toMatchObject({ pivot: "EUR" });
    // GBPUSD starts on the 1st, EURGBP on the 3rd: on the 2nd only USD works.
    expect(resolveFx("GBP", "JPY", "2024-01-02", ecb, ["EUR", "USD"])).toMatchObject({ pivot: "USD" });
  });

  it("finds no cross without pivots", () => {
    expect(resolveFx("GBP", "JPY", "2024-01-05", ecb, [])).toBeUndefined();
  });

  it("fxPairsFor names every pair a path may use, both ways round", () => {
    const pairs = new Set(fxPairsFor(["USD", "GBP"], "JPY", ["USD", "EUR"]));
    for (const pair of [
      "USDJPY",
      "JPYUSD",
      "GBPJPY",
      "JPYGBP",
      "GBPUSD",
      "USDGBP",
      "GBPEUR",
      "EURGBP",
      "EURJPY",
      "JPYEUR",
      "USDEUR",
      "EURUSD",
    ])
      expect(pairs.has(pair), pair).toBe(true);
    expect([...pairs].every((p) => p.slice(0, 3) !== p.slice(3))).toBe(true);
  });
});
