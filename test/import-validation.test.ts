import { beforeAll, describe, expect, it } from "vitest";
import { adminToken, call, newClient, useOwnRuntime } from "./http";
import {
  createPortfolio,
  createSecurities,
  holdingsOf,
  whenValued,
  importData,
  imported,
  listAll,
  newIsin,
  price,
  securityRecord,
  uid,
  validationDetails,
  wrongCheckDigit,
} from "./investment-fixtures";

useOwnRuntime();

// Every validation rule of the import: the 422 detail names the field, and nothing is written
// (the valid records next to the bad one are not stored either). Dates: 2015.
describe("import validation", () => {
  let token: string;
  beforeAll(async () => {
    token = await adminToken();
  });

  const fieldsOf = (details: { field: string }[]): string[] => details.map((d) => d.field);
  const securityStatus = async (idOrIsin: string): Promise<number> =>
    (await call("GET", `/api/v1/securities/${idOrIsin}`, { token })).status;
  const pricesOf = (securityId: string) => listAll(token, `/api/v1/securities/${securityId}/prices`);

  it("ISIN format: a malformed ISIN is one detail naming the field; nothing written", async () => {
    const good = securityRecord();
    const reply = await importData(token, "securities", {
      securities: [good, securityRecord({ isin: "US037833100" })],
    });
    const details = validationDetails(reply);
    expect(details).toContainEqual({ field: "securities[1].isin", message: expect.stringMatching(/must be an ISIN/) });
    expect(details.every((d) => d.field === "securities[1].isin")).toBe(true);
    expect(await securityStatus(`sec_${good.isin}`)).toBe(404);

    // In a price import too, with lower case and too-long variants.
    const [secId] = await createSecurities(token, [securityRecord()]);
    const existing = (await call("GET", `/api/v1/securities/${secId}`, { token })).body.data.isin as string;
    const priceReply = await importData(token, "prices", {
      prices: [
        price(existing, "2015-01-05", 10),
        price(existing.toLowerCase(), "2015-01-06", 10),
        price(`${existing}0`, "2015-01-07", 10),
      ],
    });
    const priceDetails = validationDetails(priceReply);
    expect(priceDetails).toContainEqual({ field: "prices[1].isin", message: expect.stringMatching(/must be an ISIN/) });
    expect(priceDetails).toContainEqual({ field: "prices[2].isin", message: expect.stringMatching(/must be an ISIN/) });
    expect(await pricesOf(secId)).toEqual([]);

    // One problem, one detail: a string that is not an ISIN has no check digit to be wrong.
    expect(fieldsOf(details)).toEqual(["securities[1].isin"]);
    expect(fieldsOf(priceDetails)).toEqual(["prices[1].isin", "prices[2].isin"]);
  });

  it("ISIN check digit: a wrong check digit is rejected; nothing written", async () => {
    const good = securityRecord();
    const bad = securityRecord();
    bad.isin = wrongCheckDigit(bad.isin);
    const reply = await importData(token, "securities", { securities: [good, bad] });
    const details = validationDetails(reply);
    expect(details).toEqual([{ field: "securities[1].isin", message: expect.stringMatching(/check digit/i) }]);
    expect(await securityStatus(`sec_${good.isin}`)).toBe(404);
    expect(await securityStatus(`sec_${bad.isin}`)).toBe(404);
  });

  it("ISO 4217 currency: unknown codes in securities, prices and FX rates; nothing written", async () => {
    const good = securityRecord();
    const reply = await importData(token, "securities", {
      securities: [good, securityRecord({ currency: "XYZ" }), securityRecord({ currency: "eur" })],
    });
    expect(fieldsOf(validationDetails(reply))).toEqual(["securities[1].currency", "securities[2].currency"]);
    expect(await securityStatus(`sec_${good.isin}`)).toBe(404);

    const sec = securityRecord();
    const [secId] = await createSecurities(token, [sec]);
    const prices = await importData(token, "prices", {
      prices: [price(sec.isin, "2015-01-05", 10), price(sec.isin, "2015-01-06", 10, { currency: "EURO" })],
    });
    expect(fieldsOf(validationDetails(prices))).toEqual(["prices[1].currency"]);
    expect(await pricesOf(secId)).toEqual([]);

    const fx = await importData(token, "fx-rates", {
      fxRates: [
        { baseCurrency: "ABC", quoteCurrency: "EUR", date: "2015-01-05", rate: 1.1, source: "ecb" },
        { baseCurrency: "EUR", quoteCurrency: "US$", date: "2015-01-05", rate: 1.1, source: "ecb" },
      ],
    });
    expect(fieldsOf(validationDetails(fx))).toEqual(["fxRates[0].baseCurrency", "fxRates[1].quoteCurrency"]);
  });

  it("invalid calendar dates (2024-02-30, 2015-13-01, 2015-1-5) in prices, positions, transactions and FX; nothing written", async () => {
    const portfolio = await createPortfolio(token);
    const sec = securityRecord();
    const [secId] = await createSecurities(token, [sec]);
    const prices = await importData(token, "prices", {
      prices: [
        price(sec.isin, "2015-02-27", 10),
        price(sec.isin, "2024-02-30", 10),
        price(sec.isin, "2015-13-01", 10),
        price(sec.isin, "2015-1-5", 10),
      ],
    });
    expect(fieldsOf(validationDetails(prices))).toEqual(["prices[1].date", "prices[2].date", "prices[3].date"]);
    expect(await pricesOf(secId)).toEqual([]);

    const positions = await importData(token, "positions", {
      positions: [
        { portfolioId: portfolio.id, securityId: secId, date: "2015-02-27", quantity: 1 },
        { portfolioId: portfolio.id, securityId: secId, date: "2024-02-30", quantity: 1 },
      ],
    });
    expect(fieldsOf(validationDetails(positions))).toEqual(["positions[1].date"]);
    await whenValued(token, portfolio.id);
    expect((await holdingsOf(token, portfolio.id)).holdings).toEqual([]);

    const transactions = await importData(token, "transactions", {
      transactions: [
        {
          externalId: uid("ok"),
          portfolioId: portfolio.id,
          type: "deposit",
          tradeDate: "2015-02-27",
          netAmount: 1,
          currency: "EUR",
        },
        {
          externalId: uid("bad"),
          portfolioId: portfolio.id,
          type: "deposit",
          tradeDate: "2024-02-30",
          netAmount: 1,
          currency: "EUR",
        },
        {
          externalId: uid("bad"),
          portfolioId: portfolio.id,
          type: "deposit",
          tradeDate: "2015-02-27",
          settlementDate: "2015-02-31",
          netAmount: 1,
          currency: "EUR",
        },
      ],
    });
    expect(fieldsOf(validationDetails(transactions))).toEqual([
      "transactions[1].tradeDate",
      "transactions[2].settlementDate",
    ]);
    expect(await listAll(token, `/api/v1/transactions?portfolioId=${portfolio.id}`)).toEqual([]);

    const fx = await importData(token, "fx-rates", {
      fxRates: [{ baseCurrency: "EUR", quoteCurrency: "GBP", date: "2024-02-30", rate: 0.8, source: "ecb" }],
    });
    expect(fieldsOf(validationDetails(fx))).toEqual(["fxRates[0].date"]);
  });

  it("non-positive price: 0 and negative prices are rejected; nothing written", async () => {
    const sec = securityRecord();
    const [secId] = await createSecurities(token, [sec]);
    const reply = await importData(token, "prices", {
      prices: [price(sec.isin, "2015-03-02", 10), price(sec.isin, "2015-03-03", 0), price(sec.isin, "2015-03-04", -5)],
    });
    expect(fieldsOf(validationDetails(reply))).toEqual(["prices[1].price", "prices[2].price"]);
    expect(await pricesOf(secId)).toEqual([]);
  });

  it("non-positive FX rate: 0 and negative rates are rejected; the valid rate beside them is not written", async () => {
    // KES and UGX appear in no other test. If the valid KESUGX rate below were written, the
    // portfolio valued afterwards would find it; it must show no FX instead.
    const reply = await importData(token, "fx-rates", {
      fxRates: [
        { baseCurrency: "KES", quoteCurrency: "UGX", date: "2015-03-02", rate: 28.5, source: "ecb" },
        { baseCurrency: "KES", quoteCurrency: "UGX", date: "2015-03-03", rate: 0, source: "ecb" },
        { baseCurrency: "KES", quoteCurrency: "UGX", date: "2015-03-04", rate: -1, source: "ecb" },
      ],
    });
    expect(fieldsOf(validationDetails(reply))).toEqual(["fxRates[1].rate", "fxRates[2].rate"]);

    const portfolio = await createPortfolio(token, { baseCurrency: "UGX" });
    const sec = securityRecord({ currency: "KES" });
    const [secId] = await createSecurities(token, [sec]);
    await imported(token, "prices", { prices: [price(sec.isin, "2015-03-05", 100, { currency: "KES" })] });
    await imported(token, "positions", {
      positions: [{ portfolioId: portfolio.id, securityId: secId, date: "2015-03-05", quantity: 1 }],
    });
    await whenValued(token, portfolio.id);
    const view = await holdingsOf(token, portfolio.id);
    expect(view.holdings).toHaveLength(1);
    expect(view.holdings[0]).toMatchObject({ securityId: secId, price: 100, fxRate: null, marketValue: null });
  });

  it("unknown enum values: asset class, price type, transaction type and status; nothing written", async () => {
    const good = securityRecord();
    const securities = await importData(token, "securities", {
      securities: [good, securityRecord({ assetClass: "stock" }), securityRecord({ status: "deleted" })],
    });
    expect(fieldsOf(validationDetails(securities))).toEqual(["securities[1].assetClass", "securities[2].status"]);
    expect(await securityStatus(`sec_${good.isin}`)).toBe(404);

    const sec = securityRecord();
    const [secId] = await createSecurities(token, [sec]);
    const prices = await importData(token, "prices", {
      prices: [price(sec.isin, "2015-04-01", 10), price(sec.isin, "2015-04-02", 10, { type: "last" })],
    });
    expect(fieldsOf(validationDetails(prices))).toEqual(["prices[1].type"]);
    expect(await pricesOf(secId)).toEqual([]);

    const portfolio = await createPortfolio(token);
    const transactions = await importData(token, "transactions", {
      transactions: [
        {
          externalId: uid("ok"),
          portfolioId: portfolio.id,
          type: "deposit",
          tradeDate: "2015-04-01",
          netAmount: 1,
          currency: "EUR",
        },
        {
          externalId: uid("t"),
          portfolioId: portfolio.id,
          securityId: secId,
          type: "swap",
          tradeDate: "2015-04-01",
          netAmount: 1,
          currency: "EUR",
        },
        {
          externalId: uid("s"),
          portfolioId: portfolio.id,
          type: "deposit",
          status: "done",
          tradeDate: "2015-04-01",
          netAmount: 1,
          currency: "EUR",
        },
      ],
    });
    const fields = fieldsOf(validationDetails(transactions));
    expect(fields).toContain("transactions[1].type");
    expect(fields).toContain("transactions[2].status");
    expect(fields.every((f) => f.startsWith("transactions[1]") || f.startsWith("transactions[2]"))).toBe(true);
    expect(await listAll(token, `/api/v1/transactions?portfolioId=${portfolio.id}`)).toEqual([]);
  });

  it("unknown portfolio (by id and by code) in positions and transactions; nothing written", async () => {
    const portfolio = await createPortfolio(token);
    const sec = securityRecord();
    const [secId] = await createSecurities(token, [sec]);
    const positions = await importData(token, "positions", {
      positions: [
        { portfolioId: portfolio.id, securityId: secId, date: "2015-05-04", quantity: 1 },
        { portfolioId: "no-such-portfolio", securityId: secId, date: "2015-05-04", quantity: 1 },
        { portfolioCode: uid("NOPE"), securityId: secId, date: "2015-05-04", quantity: 1 },
      ],
    });
    const details = validationDetails(positions);
    expect(fieldsOf(details)).toEqual(["positions[1].portfolioId", "positions[2].portfolioCode"]);
    expect(details[0]?.message).toMatch(/does not exist/);
    await whenValued(token, portfolio.id);
    expect((await holdingsOf(token, portfolio.id)).holdings).toEqual([]);

    const transactions = await importData(token, "transactions", {
      transactions: [
        {
          externalId: uid("ok"),
          portfolioId: portfolio.id,
          type: "deposit",
          tradeDate: "2015-05-04",
          netAmount: 1,
          currency: "EUR",
        },
        {
          externalId: uid("x"),
          portfolioId: "no-such-portfolio",
          type: "deposit",
          tradeDate: "2015-05-04",
          netAmount: 1,
          currency: "EUR",
        },
      ],
    });
    expect(fieldsOf(validationDetails(transactions))).toEqual(["transactions[1].portfolioId"]);
    expect(await listAll(token, `/api/v1/transactions?portfolioId=${portfolio.id}`)).toEqual([]);
  });

  it("unknown security (by ISIN and by id) in prices, positions and transactions; nothing written", async () => {
    const portfolio = await createPortfolio(token);
    const sec = securityRecord();
    const [secId] = await createSecurities(token, [sec]);
    const unknownIsin = newIsin();

    const prices = await importData(token, "prices", {
      prices: [price(sec.isin, "2015-05-04", 10), price(unknownIsin, "2015-05-04", 10)],
    });
    const priceDetails = validationDetails(prices);
    expect(fieldsOf(priceDetails)).toEqual(["prices[1].isin"]);
    expect(priceDetails[0]?.message).toMatch(/does not exist/);
    expect(await pricesOf(secId)).toEqual([]);

    const positions = await importData(token, "positions", {
      positions: [
        { portfolioId: portfolio.id, securityId: secId, date: "2015-05-04", quantity: 1 },
        { portfolioId: portfolio.id, isin: unknownIsin, date: "2015-05-04", quantity: 1 },
        { portfolioId: portfolio.id, securityId: "sec_nothing", date: "2015-05-04", quantity: 1 },
      ],
    });
    expect(fieldsOf(validationDetails(positions))).toEqual(["positions[1].isin", "positions[2].securityId"]);
    await whenValued(token, portfolio.id);
    expect((await holdingsOf(token, portfolio.id)).holdings).toEqual([]);

    const transactions = await importData(token, "transactions", {
      transactions: [
        {
          externalId: uid("ok"),
          portfolioId: portfolio.id,
          securityId: secId,
          type: "buy",
          quantity: 1,
          tradeDate: "2015-05-04",
          netAmount: 1,
          currency: "EUR",
        },
        {
          externalId: uid("x"),
          portfolioId: portfolio.id,
          securityId: "sec_nothing",
          type: "buy",
          quantity: 1,
          tradeDate: "2015-05-04",
          netAmount: 1,
          currency: "EUR",
        },
      ],
    });
    expect(fieldsOf(validationDetails(transactions))).toEqual(["transactions[1].securityId"]);
    expect(await listAll(token, `/api/v1/transactions?portfolioId=${portfolio.id}`)).toEqual([]);
  });

  it("archived portfolio: positions and transactions naming it are rejected; nothing written", async () => {
    const open = await createPortfolio(token);
    const archived = await createPortfolio(token);
    const sec = securityRecord();
    const [secId] = await createSecurities(token, [sec]);
    expect(
      (await call("PATCH", `/api/v1/portfolios/${archived.id}`, { token, body: { status: "archived" } })).status,
    ).toBe(200);

    const positions = await importData(token, "positions", {
      positions: [
        { portfolioId: open.id, securityId: secId, date: "2015-06-01", quantity: 1 },
        { portfolioId: archived.id, securityId: secId, date: "2015-06-01", quantity: 1 },
        { portfolioCode: archived.code, securityId: secId, date: "2015-06-02", quantity: 1 },
      ],
    });
    const details = validationDetails(positions);
    expect(fieldsOf(details)).toEqual(["positions[1].portfolioId", "positions[2].portfolioCode"]);
    expect(details[0]?.message).toMatch(/archived/);
    await whenValued(token, open.id);
    expect((await holdingsOf(token, open.id)).holdings).toEqual([]);
    await whenValued(token, archived.id);
    expect((await holdingsOf(token, archived.id)).holdings).toEqual([]);

    const transactions = await importData(token, "transactions", {
      transactions: [
        {
          externalId: uid("ok"),
          portfolioId: open.id,
          type: "deposit",
          tradeDate: "2015-06-01",
          netAmount: 1,
          currency: "EUR",
        },
        {
          externalId: uid("x"),
          portfolioId: archived.id,
          type: "deposit",
          tradeDate: "2015-06-01",
          netAmount: 1,
          currency: "EUR",
        },
      ],
    });
    expect(fieldsOf(validationDetails(transactions))).toEqual(["transactions[1].portfolioId"]);
    expect(await listAll(token, `/api/v1/transactions?portfolioId=${open.id}`)).toEqual([]);
    expect(await listAll(token, `/api/v1/transactions?portfolioId=${archived.id}`)).toEqual([]);
  });

  it("securities: lookThroughPortfolioId must name an existing fund portfolio; an ISIN cannot move to another id; nothing written", async () => {
    const standard = await createPortfolio(token);
    const fund = await createPortfolio(token, { type: "fund" });
    const good = securityRecord({ assetClass: "fund", lookThroughPortfolioId: fund.id });
    const reply = await importData(token, "securities", {
      securities: [
        good,
        securityRecord({ lookThroughPortfolioId: "no-such-fund" }),
        securityRecord({ lookThroughPortfolioId: standard.id }),
      ],
    });
    expect(fieldsOf(validationDetails(reply))).toEqual([
      "securities[1].lookThroughPortfolioId",
      "securities[2].lookThroughPortfolioId",
    ]);
    expect(await securityStatus(`sec_${good.isin}`)).toBe(404);

    const taken = securityRecord();
    await createSecurities(token, [taken]);
    const other = securityRecord();
    const moved = await importData(token, "securities", {
      securities: [other, { ...taken, id: `other-${uid("id")}` }],
    });
    expect(fieldsOf(validationDetails(moved))).toEqual(["securities[1].isin"]);
    expect(await securityStatus(`sec_${other.isin}`)).toBe(404);
    expect((await call("GET", `/api/v1/securities/${taken.isin}`, { token })).body.data.id).toBe(`sec_${taken.isin}`);
  });

  it("composite portfolios take no positions", async () => {
    const member = await createPortfolio(token);
    const composite = await createPortfolio(token, { type: "composite", memberIds: [member.id] });
    const [secId] = await createSecurities(token, [securityRecord()]);
    const reply = await importData(token, "positions", {
      positions: [
        { portfolioId: member.id, securityId: secId, date: "2015-06-01", quantity: 1 },
        { portfolioId: composite.id, securityId: secId, date: "2015-06-01", quantity: 1 },
      ],
    });
    expect(fieldsOf(validationDetails(reply))).toEqual(["positions[1].portfolioId"]);
    await whenValued(token, member.id);
    expect((await holdingsOf(token, member.id)).holdings).toEqual([]);
    await whenValued(token, composite.id);
    expect((await holdingsOf(token, composite.id)).holdings).toEqual([]);
  });

  it("duplicate natural keys in one payload, for every data type; nothing written", async () => {
    const portfolio = await createPortfolio(token);
    const sec = securityRecord();
    const [secId] = await createSecurities(token, [sec]);

    // securities: the same ISIN twice
    const dupSec = securityRecord();
    const securities = await importData(token, "securities", {
      securities: [dupSec, { ...dupSec, name: "Other name" }],
    });
    expect(fieldsOf(validationDetails(securities))).toEqual(["securities[1]"]);
    expect(await securityStatus(`sec_${dupSec.isin}`)).toBe(404);
    const claimed = await importData(token, "securities", {
      securities: [
        { ...dupSec, id: uid("own-a") },
        { ...dupSec, id: uid("own-b") },
      ],
    });
    expect(fieldsOf(validationDetails(claimed))).toEqual(["securities[1].isin"]);
    expect(await securityStatus(dupSec.isin)).toBe(404);

    // prices: same ISIN, date, type and source
    const prices = await importData(token, "prices", {
      prices: [price(sec.isin, "2015-07-01", 10), price(sec.isin, "2015-07-02", 10), price(sec.isin, "2015-07-01", 11)],
    });
    expect(fieldsOf(validationDetails(prices))).toEqual(["prices[2]"]);
    expect(await pricesOf(secId)).toEqual([]);

    // positions: the same security twice in one portfolio and date (once by id, once by ISIN)
    const positions = await importData(token, "positions", {
      positions: [
        { portfolioId: portfolio.id, securityId: secId, date: "2015-07-01", quantity: 1 },
        { portfolioId: portfolio.id, isin: sec.isin, date: "2015-07-01", quantity: 2 },
      ],
    });
    expect(fieldsOf(validationDetails(positions))).toEqual(["positions[1]"]);
    await whenValued(token, portfolio.id);
    expect((await holdingsOf(token, portfolio.id)).holdings).toEqual([]);

    // transactions: the same external id in the same portfolio
    const externalId = uid("dup");
    const transactions = await importData(token, "transactions", {
      transactions: [
        {
          externalId,
          portfolioId: portfolio.id,
          type: "deposit",
          tradeDate: "2015-07-01",
          netAmount: 1,
          currency: "EUR",
        },
        {
          externalId,
          portfolioCode: portfolio.code,
          type: "deposit",
          tradeDate: "2015-07-01",
          netAmount: 2,
          currency: "EUR",
        },
      ],
    });
    expect(fieldsOf(validationDetails(transactions))).toEqual(["transactions[1].externalId"]);
    expect(await listAll(token, `/api/v1/transactions?portfolioId=${portfolio.id}`)).toEqual([]);

    // fx rates: same pair, date and source
    const fx = await importData(token, "fx-rates", {
      fxRates: [
        { baseCurrency: "EUR", quoteCurrency: "GBP", date: "2015-07-01", rate: 0.8, source: "ecb" },
        { baseCurrency: "EUR", quoteCurrency: "GBP", date: "2015-07-01", rate: 0.81, source: "ecb" },
      ],
    });
    expect(fieldsOf(validationDetails(fx))).toEqual(["fxRates[1]"]);
  });

  it("illegal transaction moves: settled and cancelled are final; the 422 names transactions[i].status and nothing is written", async () => {
    const portfolio = await createPortfolio(token);
    const base = {
      portfolioId: portfolio.id,
      type: "deposit",
      tradeDate: "2015-08-03",
      netAmount: 10,
      currency: "EUR",
    };
    const settledId = uid("settled");
    const cancelledId = uid("cancelled");
    await imported(token, "transactions", {
      transactions: [
        { ...base, externalId: settledId, status: "settled" },
        { ...base, externalId: cancelledId, status: "pending" },
      ],
    });
    await imported(token, "transactions", {
      transactions: [{ ...base, externalId: cancelledId, status: "cancelled" }],
    });
    const before = await listAll(token, `/api/v1/transactions?portfolioId=${portfolio.id}`);
    expect(Object.fromEntries(before.map((t) => [t.externalId, t.status]))).toEqual({
      [settledId]: "settled",
      [cancelledId]: "cancelled",
    });

    const newId = uid("new");
    const reply = await importData(token, "transactions", {
      transactions: [
        { ...base, externalId: newId },
        { ...base, externalId: settledId, status: "pending" },
        { ...base, externalId: cancelledId, status: "settled" },
      ],
    });
    const details = validationDetails(reply);
    expect(fieldsOf(details)).toEqual(["transactions[1].status", "transactions[2].status"]);
    expect(details[0]?.message).toMatch(/settled/);
    const after = await listAll(token, `/api/v1/transactions?portfolioId=${portfolio.id}`);
    expect(after).toEqual(before);

    // failed is final too
    const failedId = uid("failed");
    await imported(token, "transactions", { transactions: [{ ...base, externalId: failedId, status: "failed" }] });
    const fromFailed = await importData(token, "transactions", {
      transactions: [{ ...base, externalId: failedId, status: "settled" }],
    });
    expect(fieldsOf(validationDetails(fromFailed))).toEqual(["transactions[0].status"]);
  });

  it("one detail per problem across records, each naming its index", async () => {
    const sec = securityRecord();
    const [secId] = await createSecurities(token, [sec]);
    const prices = Array.from({ length: 20 }, (_, i) =>
      price(sec.isin, `2015-09-${String(i + 1).padStart(2, "0")}`, 10 + i),
    );
    prices[3] = { ...prices[3], price: -1 };
    prices[12] = { ...prices[12], isin: wrongCheckDigit(sec.isin) };
    prices[17] = { ...prices[17], type: "last", currency: "EURO" };
    const details = validationDetails(await importData(token, "prices", { prices }));
    expect(fieldsOf(details).sort()).toEqual([
      "prices[12].isin",
      "prices[17].currency",
      "prices[17].type",
      "prices[3].price",
    ]);
    expect(await pricesOf(secId)).toEqual([]);
  });

  it("413 PAYLOAD_TOO_LARGE for 10,001 records; nothing written", async () => {
    const sec = securityRecord();
    const [secId] = await createSecurities(token, [sec]);
    const prices = Array.from({ length: 10_001 }, (_, i) => ({
      isin: sec.isin,
      date: "2015-10-01",
      price: 1,
      currency: "EUR",
      type: "close",
      source: `s${i}`,
    }));
    // Under 1 MiB: the record count, not the byte size, is what is over the limit.
    expect(JSON.stringify({ prices }).length).toBeLessThan(1024 * 1024);
    const reply = await importData(token, "prices", { prices });
    expect(reply.status, reply.text.slice(0, 300)).toBe(413);
    expect(reply.body.error.code).toBe("PAYLOAD_TOO_LARGE");
    expect(await pricesOf(secId)).toEqual([]);
  });

  it("400 INVALID_REQUEST naming dataType for an unknown data type", async () => {
    for (const dataType of ["holdings", "fx_rates", "Prices"]) {
      const reply = await importData(token, dataType, { holdings: [] });
      expect(reply.status, dataType).toBe(400);
      expect(reply.body.error.code).toBe("INVALID_REQUEST");
      expect(reply.body.error.details.map((d: { field: string }) => d.field)).toContain("dataType");
    }
  });

  it("Idempotency-Key: the same key and body replay the stored response; another body is 422", async () => {
    const sec = securityRecord();
    const [secId] = await createSecurities(token, [sec]);
    const key = uid("idem");
    const body = { prices: [price(sec.isin, "2015-11-02", 10), price(sec.isin, "2015-11-03", 11)] };
    const first = await importData(token, "prices", body, { "Idempotency-Key": key });
    expect(first.status).toBe(200);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    expect(first.body.data).toMatchObject({ received: 2, created: 2 });
    const stored = await pricesOf(secId);

    const replay = await importData(token, "prices", body, { "Idempotency-Key": key });
    expect(replay.status).toBe(200);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    // The stored response, not a second run (which would say unchanged: 2 under a new job).
    expect(replay.body).toEqual(first.body);
    expect(replay.body.data.jobId).toBe(first.body.data.jobId);
    expect(await pricesOf(secId)).toEqual(stored);

    const other = { prices: [price(sec.isin, "2015-11-04", 12)] };
    const mismatch = await importData(token, "prices", other, { "Idempotency-Key": key });
    const details = validationDetails(mismatch);
    expect(details[0]?.field).toBe("Idempotency-Key");
    expect((await pricesOf(secId)).map((p) => p.date)).toEqual(["2015-11-02", "2015-11-03"]);

    // The key belongs to the data type: the same key on another import is a separate request.
    const elsewhere = await importData(
      token,
      "securities",
      { securities: [securityRecord()] },
      { "Idempotency-Key": key },
    );
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.headers.get("idempotent-replayed")).toBeNull();

    // Without a key, the same body runs again (unchanged, new job).
    const again = await importData(token, "prices", body);
    expect(again.body.data).toMatchObject({ created: 0, unchanged: 2 });
    expect(again.body.data.jobId).not.toBe(first.body.data.jobId);
  });

  it("Idempotency-Key: a rejected request is replayed too; keys are per API client", async () => {
    const sec = securityRecord();
    const [secId] = await createSecurities(token, [sec]);
    const key = uid("idem-err");
    const bad = { prices: [price(sec.isin, "2015-11-10", -1)] };
    const first = await importData(token, "prices", bad, { "Idempotency-Key": key });
    expect(fieldsOf(validationDetails(first))).toEqual(["prices[0].price"]);
    const replay = await importData(token, "prices", bad, { "Idempotency-Key": key });
    expect(fieldsOf(validationDetails(replay))).toEqual(["prices[0].price"]);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.body.error.requestId).toBe(replay.headers.get("x-request-id"));

    // Another client may use the same key for its own request.
    const other = await newClient(token, ["api.read", "api.write"]);
    const good = { prices: [price(sec.isin, "2015-11-10", 1)] };
    const theirs = await importData(other.token, "prices", good, { "Idempotency-Key": key });
    expect(theirs.status).toBe(200);
    expect(theirs.headers.get("idempotent-replayed")).toBeNull();
    expect((await pricesOf(secId)).map((p) => p.price)).toEqual([1]);
  });

  it("Idempotency-Key: a second request while the first still runs is 409 (and an import body over 1 MiB but under 10 MB is accepted)", async () => {
    const sec = securityRecord();
    await createSecurities(token, [sec]);
    const key = uid("inflight");
    // An unusual record count identifies this import's job among the others of the shared runtime.
    const count = 7_919;
    const body = {
      prices: Array.from({ length: count }, (_, i) => ({
        isin: sec.isin,
        date: "2015-12-01",
        price: 1,
        currency: "EUR",
        type: "close",
        source: `${"x".repeat(90)}${i}`,
      })),
    };
    expect(JSON.stringify(body).length).toBeGreaterThan(1024 * 1024);
    const first = importData(token, "prices", body, { "Idempotency-Key": key });
    // The job is recorded after the key is claimed and before the records are written: once it shows
    // as running, the key is held by a request that is still running.
    await expect
      .poll(
        async () => {
          const jobs = await call("GET", "/api/v1/jobs?status=running&dataType=prices&pageSize=200", { token });
          return (jobs.body.data as { counts: { received: number } }[]).some((j) => j.counts.received === count);
        },
        { message: "the first import was never seen running", timeout: 10_000, interval: 5 },
      )
      .toBe(true);
    const second = await importData(token, "prices", body, { "Idempotency-Key": key });
    expect(second.status).toBe(409);
    expect(second.body.error.code).toBe("CONFLICT");
    const done = await first;
    expect(done.status, done.text.slice(0, 300)).toBe(200);
    expect(done.body.data).toMatchObject({ received: count, created: count });
    // Once the first is done, the key replays its response.
    const third = await importData(token, "prices", body, { "Idempotency-Key": key });
    expect(third.status).toBe(200);
    expect(third.headers.get("idempotent-replayed")).toBe("true");
    expect(third.body).toEqual(done.body);
  });
});
