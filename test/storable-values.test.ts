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

/*
 * "Values every store can hold", refused at the door: no string with NUL, an unpaired surrogate or a
 * Unicode noncharacter, no date outside 0001-01-01 … 9999-12-31, no price or FX rate with more than 12
 * decimal places. A JSON body is 422 naming the field, a parameter 400; nothing is written. (Values
 * read from feed files: feeds-settings.test.ts.)
 */

let token: string;
beforeAll(async () => {
  token = await adminToken();
});

/** JSON text as a client writes it: `\u` escapes spell what JSON.stringify would not send. */
const raw = (json: string) => ({ body: json, headers: { "Content-Type": "application/json" } });

describe("strings no store can hold", () => {
  it("a portfolio named NUL is 422 naming `name` (201 before), and no portfolio is created", async () => {
    const code = uid("NUL");
    const reply = await call("POST", "/api/v1/portfolios", {
      token,
      ...raw(`{"name":"\\u0000","code":"${code}","clientId":"c","baseCurrency":"EUR"}`),
    });
    expect(validationDetails(reply)).toEqual([
      { field: "name", message: "contains U+0000 (NUL) at character 1, which no store can hold" },
    ]);
    const list = await call("GET", `/api/v1/portfolios?pageSize=200`, { token });
    expect(list.body.data.map((p: { code: string }) => p.code)).not.toContain(code);
  });

  it('`"feedId": "\\ud800"` on a blob-source create or PATCH is 422 on feedId (a 500 URIError before)', async () => {
    const body = (feedId: string) =>
      `{"name":"drop","containerUrl":"https://custacct01.blob.core.windows.net/drop","filePattern":"*.csv","feedId":"${feedId}","schedule":{"every":"1h"}}`;
    const created = await call("POST", "/api/v1/settings/blob-sources", { token, ...raw(body("\\ud800")) });
    expect(validationDetails(created)).toEqual([
      { field: "feedId", message: "contains an unpaired surrogate (U+D800) at character 1, which is not Unicode text" },
    ]);
    const patched = await call("PATCH", "/api/v1/settings/blob-sources/bs_unknown", {
      token,
      ...raw('{"feedId":"fd_\\udfff"}'),
    });
    expect(validationDetails(patched)).toEqual([
      { field: "feedId", message: expect.stringMatching(/unpaired surrogate \(U\+DFFF\) at character 4/) },
    ]);
  });

  it("every import and settings body, keys included: noncharacters of any plane and lone surrogates name their field", async () => {
    const portfolio = await createPortfolio(token);
    const transactions = await call("POST", "/api/v1/import/transactions", {
      token,
      ...raw(
        `{"transactions":[{"externalId":"ok","portfolioId":"${portfolio.id}","type":"deposit","tradeDate":"2024-01-02","netAmount":1,"currency":"EUR"},` +
          `{"externalId":"x\\uFFFE","portfolioId":"${portfolio.id}","type":"deposit","tradeDate":"2024-01-02","netAmount":1,"currency":"EUR","source":"a\\uD83F\\uDFFF"}]}`,
      ),
    });
    expect(validationDetails(transactions)).toEqual([
      { field: "transactions[1].externalId", message: expect.stringMatching(/noncharacter U\+FFFE at character 2/) },
      { field: "transactions[1].source", message: expect.stringMatching(/noncharacter U\+1FFFF at character 2/) },
    ]);
    expect(await listAll(token, `/api/v1/transactions?portfolioId=${portfolio.id}`)).toEqual([]);

    const webhook = await call("POST", "/api/v1/settings/webhooks", {
      token,
      ...raw('{"url":"https://example.com/hook","events":["portfolio.valued"],"description":"ops \\uFDD0"}'),
    });
    expect(validationDetails(webhook)).toEqual([
      { field: "description", message: expect.stringMatching(/noncharacter U\+FDD0/) },
    ]);
    const feed = await call("POST", "/api/v1/settings/feeds", {
      token,
      ...raw(
        '{"name":"f","provider":"p","dataType":"prices","format":"csv","filePattern":"p*.csv","mapping":{"type":{"source":"T","map":{"\\u0000":"close"}}}}',
      ),
    });
    expect(validationDetails(feed)).toEqual([
      { field: "mapping.type.map.\\u{0}", message: expect.stringMatching(/^the key contains U\+0000/) },
    ]);
  });

  it("a query or path parameter holding one is 400 naming it; an id no store can look up is refused at the token endpoint too", async () => {
    const query = await call("GET", "/api/v1/securities?q=%EF%BF%BE", { token });
    expect(query.status, query.text).toBe(400);
    expect(query.body.error).toMatchObject({
      code: "INVALID_REQUEST",
      details: [{ field: "q", message: expect.stringMatching(/noncharacter U\+FFFE/) }],
    });
    const path = await call("GET", "/api/v1/portfolios/pf%EF%B7%90", { token });
    expect(path.status, path.text).toBe(400);
    expect(path.body.error.details).toEqual([
      { field: "portfolioId", message: expect.stringMatching(/noncharacter U\+FDD0 at character 3/) },
    ]);
    // A client id with a `/` reached the store's item path: a 500 before, no client's id now.
    const form = new URLSearchParams({ grant_type: "client_credentials", client_id: "a/b", client_secret: "x" });
    const token400 = await call("POST", "/auth/token", {
      body: form.toString(),
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
    });
    expect(token400.status, token400.text).toBe(401);
    expect(token400.body.error).toBe("invalid_client");
  });
});

describe("dates and decimals every store can hold", () => {
  it("a price dated 0000-01-01 is 422 on its date (200 before); 9999-12-31 is stored", async () => {
    const [secId] = await createSecurities(token, [securityRecord()]);
    const isin = secId.slice("sec_".length);
    const price = { isin, price: 10, currency: "EUR", type: "close", source: "dates" };
    expect(
      validationDetails(await importData(token, "prices", { prices: [{ ...price, date: "0000-01-01" }] })),
    ).toEqual([{ field: "prices[0].date", message: "must be a date from 0001-01-01 to 9999-12-31" }]);
    expect(await imported(token, "prices", { prices: [{ ...price, date: "9999-12-31" }] })).toMatchObject({
      created: 1,
    });
  });

  it("prices and FX rates with more than 12 decimal places are 422 naming the field (stored as 0 by the replica before)", async () => {
    const [secId] = await createSecurities(token, [securityRecord()]);
    const isin = secId.slice("sec_".length);
    const price = (date: string, value: number) => ({
      isin,
      date,
      price: value,
      currency: "EUR",
      type: "close",
      source: "dp",
    });
    const prices = await importData(token, "prices", {
      prices: [
        price("2016-01-04", 5e-324),
        price("2016-01-05", 1.5e-29),
        price("2016-01-06", 0.1234567890123),
        price("2016-01-07", 0.123456789012),
      ],
    });
    expect(validationDetails(prices)).toEqual([
      { field: "prices[0].price", message: "must have at most 12 decimal places" },
      { field: "prices[1].price", message: "must have at most 12 decimal places" },
      { field: "prices[2].price", message: "must have at most 12 decimal places" },
    ]);
    const fx = await importData(token, "fx-rates", {
      fxRates: [
        { baseCurrency: "EUR", quoteCurrency: "NOK", date: "2016-01-04", rate: 11.1234567890123, source: "dp" },
        { baseCurrency: "EUR", quoteCurrency: "NOK", date: "2016-01-05", rate: 11.123456789012, source: "dp" },
      ],
    });
    expect(validationDetails(fx)).toEqual([
      { field: "fxRates[0].rate", message: "must have at most 12 decimal places" },
    ]);
    const doc = (await call("GET", "/api/v1/openapi.json")).body;
    expect(doc.components.schemas.PriceImport.properties.price.description).toMatch(/at most 12 decimal places/);
    expect(doc.components.schemas.FxRateImport.properties.rate.description).toMatch(/at most 12 decimal places/);
  });
});
