import { beforeAll, describe, expect, it } from "vitest";
import { adminToken, call } from "./http";
import {
  createPortfolio,
  createSecurities,
  imported,
  importData,
  listAll,
  securityRecord,
  uid,
  validationDetails,
} from "./investment-fixtures";

let token: string;
beforeAll(async () => {
  token = await adminToken();
});

describe("transactions: grossAmount and netAmount derived for buys and sells", () => {
  it("stores quantity × price and ± fees, exactly, in the currency's minor units", async () => {
    const portfolio = await createPortfolio(token);
    const [secId] = await createSecurities(token, [securityRecord()]);
    const tag = uid("D");
    const base = { portfolioId: portfolio.id, securityId: secId, tradeDate: "2016-03-01" };
    const result = await imported(token, "transactions", {
      transactions: [
        // 3 × 10.005 = 30.015 → 30.02 (binary floats give 30.014999…); + 1.5 fees
        { ...base, externalId: `${tag}-buy`, type: "buy", quantity: 3, price: 10.005, fees: 1.5, currency: "EUR" },
        { ...base, externalId: `${tag}-sell`, type: "sell", quantity: 3, price: 10.005, fees: 1.5, currency: "EUR" },
        // 3 × 100.5 = 301.5 → 302 yen
        { ...base, externalId: `${tag}-jpy`, type: "buy", quantity: 3, price: 100.5, fees: 10, currency: "JPY" },
        // 0.3335 × 3 = 1.0005 → 1.001 KWD; no fees
        { ...base, externalId: `${tag}-kwd`, type: "sell", quantity: 3, price: 0.3335, currency: "KWD" },
        // A given grossAmount is kept; only netAmount is derived from it.
        { ...base, externalId: `${tag}-gross`, type: "buy", quantity: 3, grossAmount: 31, fees: 0.25, currency: "EUR" },
        // A given netAmount is never overridden.
        { ...base, externalId: `${tag}-net`, type: "buy", quantity: 3, price: 10, netAmount: 29.99, currency: "EUR" },
      ],
    });
    expect(result).toMatchObject({ received: 6, created: 6 });
    const stored = await listAll(token, `/api/v1/transactions?portfolioId=${portfolio.id}`);
    const byId = new Map(stored.map((t) => [t.externalId as string, [t.grossAmount, t.fees, t.netAmount]]));
    expect(Object.fromEntries(byId)).toEqual({
      [`${tag}-buy`]: [30.02, 1.5, 31.52],
      [`${tag}-sell`]: [30.02, 1.5, 28.52],
      [`${tag}-jpy`]: [302, 10, 312],
      [`${tag}-kwd`]: [1.001, null, 1.001],
      [`${tag}-gross`]: [31, 0.25, 31.25],
      [`${tag}-net`]: [30, null, 29.99],
    });
  });

  it("says which field is missing when netAmount cannot be derived", async () => {
    const portfolio = await createPortfolio(token);
    const [secId] = await createSecurities(token, [securityRecord()]);
    const base = { portfolioId: portfolio.id, tradeDate: "2016-03-01", currency: "EUR" };
    const reply = await importData(token, "transactions", {
      transactions: [
        { ...base, externalId: uid("ok"), securityId: secId, type: "buy", quantity: 1, price: 2 },
        { ...base, externalId: uid("noprice"), securityId: secId, type: "buy", quantity: 1 },
        { ...base, externalId: uid("div"), securityId: secId, type: "dividend" },
        { ...base, externalId: uid("sell"), securityId: secId, type: "sell", quantity: 2, fees: 1 },
      ],
    });
    expect(validationDetails(reply)).toEqual([
      { field: "transactions[1].netAmount", message: "netAmount is required, or quantity and price to derive it" },
      { field: "transactions[2].netAmount", message: "netAmount is required for a dividend" },
      { field: "transactions[3].netAmount", message: "netAmount is required, or quantity and price to derive it" },
    ]);
    // All or nothing: the valid record was not stored either.
    expect(await listAll(token, `/api/v1/transactions?portfolioId=${portfolio.id}`)).toEqual([]);
  });
});

describe("one sign convention: amounts are magnitudes, netAmount is gross ± fees", () => {
  it("refuses the README's old signed buy and a netAmount that contradicts gross ± fees by more than one minor unit, naming netAmount", async () => {
    const portfolio = await createPortfolio(token);
    const [secId] = await createSecurities(token, [securityRecord({ currency: "USD" })]);
    const buy = {
      portfolioId: portfolio.id,
      securityId: secId,
      type: "buy",
      tradeDate: "2024-03-26",
      quantity: 100,
      price: 170.1,
      fees: 5,
      currency: "USD",
    };
    const reply = await importData(token, "transactions", {
      transactions: [
        { ...buy, externalId: uid("neg"), netAmount: -17015 },
        { ...buy, externalId: uid("off"), netAmount: 17010 },
        { ...buy, externalId: uid("sell"), type: "sell", netAmount: 17015 },
        { ...buy, externalId: uid("gross"), grossAmount: -17010 },
        { ...buy, externalId: uid("fees"), fees: -5 },
      ],
    });
    expect(validationDetails(reply)).toEqual([
      {
        field: "transactions[0].netAmount",
        message: expect.stringMatching(/must not be negative: amounts are magnitudes/),
      },
      {
        field: "transactions[1].netAmount",
        message: expect.stringMatching(/^17010 contradicts grossAmount \+ fees = 17010 \+ 5 = 17015/),
      },
      {
        field: "transactions[2].netAmount",
        message: expect.stringMatching(/^17015 contradicts grossAmount − fees = 17010 − 5 = 17005/),
      },
      { field: "transactions[3].grossAmount", message: expect.stringMatching(/must not be negative/) },
      { field: "transactions[4].fees", message: expect.stringMatching(/must not be negative/) },
    ]);
    expect(await listAll(token, `/api/v1/transactions?portfolioId=${portfolio.id}`)).toEqual([]);

    // The same buy as the README now sends it, and within one minor unit (a custodian's own rounding), is stored.
    const ok = await imported(token, "transactions", {
      transactions: [
        { ...buy, externalId: uid("readme"), netAmount: 17015 },
        { ...buy, externalId: uid("cent"), netAmount: 17015.01 },
        { ...buy, externalId: uid("sold"), type: "sell" },
        {
          portfolioId: portfolio.id,
          externalId: uid("div"),
          type: "dividend",
          securityId: secId,
          tradeDate: "2024-03-26",
          netAmount: 25,
          currency: "USD",
        },
      ],
    });
    expect(ok).toMatchObject({ created: 4 });
    const stored = await listAll(token, `/api/v1/transactions?portfolioId=${portfolio.id}`);
    for (const t of stored)
      for (const field of ["grossAmount", "fees", "netAmount"]) expect(t[field] ?? 0).toBeGreaterThanOrEqual(0);
    expect(stored.find((t) => t.type === "sell")).toMatchObject({ grossAmount: 17010, netAmount: 17005 });
  });

  it("a record that changes only the fees of a stored buy is checked against its stored gross: its netAmount must follow", async () => {
    const portfolio = await createPortfolio(token);
    const [secId] = await createSecurities(token, [securityRecord()]);
    const key = { portfolioId: portfolio.id, externalId: uid("fees") };
    await imported(token, "transactions", {
      transactions: [
        { ...key, securityId: secId, type: "buy", tradeDate: "2024-03-26", quantity: 10, price: 10, currency: "EUR" },
      ],
    });
    expect(
      validationDetails(
        await importData(token, "transactions", { transactions: [{ ...key, fees: 2, netAmount: 100 }] }),
      ),
    ).toEqual([
      {
        field: "transactions[0].netAmount",
        message: expect.stringMatching(/^100 contradicts grossAmount \+ fees = 100 \+ 2 = 102/),
      },
    ]);
    expect(await imported(token, "transactions", { transactions: [{ ...key, fees: 2 }] })).toMatchObject({
      updated: 1,
    });
    expect((await listAll(token, `/api/v1/transactions?portfolioId=${portfolio.id}`))[0]).toMatchObject({
      grossAmount: 100,
      fees: 2,
      netAmount: 102,
    });
  });
});

describe("OpenAPI documents the derived amounts and the number bounds", () => {
  it("marks netAmount optional with its derivation, and bounds quantity, price and rate", async () => {
    const doc = (await call("GET", "/api/v1/openapi.json")).body;
    const transaction = doc.components.schemas.TransactionImport;
    expect(transaction.required).not.toContain("netAmount");
    expect(transaction.properties.netAmount.description).toMatch(
      /for a buy grossAmount \+ fees, for a sell grossAmount − fees/,
    );
    expect(transaction.properties.netAmount).toMatchObject({ minimum: 0, maximum: 1e15 });
    expect(transaction.properties.grossAmount.description).toMatch(/quantity × price/);
    expect(doc.components.schemas.PositionImport.properties.quantity).toMatchObject({ minimum: -1e12, maximum: 1e12 });
    expect(doc.components.schemas.PriceImport.properties.price).toMatchObject({ maximum: 1e9 });
    expect(doc.components.schemas.FxRateImport.properties.rate).toMatchObject({ minimum: 1e-9, maximum: 1e9 });
  });
});
