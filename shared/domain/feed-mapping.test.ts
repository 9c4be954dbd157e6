import { describe, expect, it } from "vitest";
import { feedCreateSchema } from "./feed";
import { compileMapping, type MappedRow } from "./feed-mapping";

/** A mapper for a feed body as a provider would send it (validated with the feed's own schema first). */
function mapper(body: Record<string, unknown>) {
  return compileMapping(feedCreateSchema.parse({ name: "f", provider: "p", filePattern: "*.dat", ...body }));
}

const ok = (r: MappedRow) => {
  expect(r.ok, JSON.stringify(r)).toBe(true);
  return r.ok ? r.record : {};
};
const errors = (r: MappedRow) => {
  expect(r.ok).toBe(false);
  return r.ok ? [] : r.errors;
};

describe("mapping csv-like records", () => {
  const prices = mapper({
    dataType: "prices",
    format: "csv",
    options: { delimiter: ";", decimalSeparator: ",", thousandsSeparator: ".", dateFormat: "dd.MM.yyyy" },
    mapping: {
      isin: "ISIN",
      date: "Kursdatum",
      price: { source: "Kurs" },
      currency: "Währung",
      type: { source: "Art", map: { S: "close", M: "mid", NAV: "nav" } },
      source: { value: "Custodian AG" },
    },
  });
  const row = { ISIN: " DE0007164600 ", Kursdatum: "28.03.2024", Kurs: "1.234,56", Währung: "EUR", Art: "S" };

  it("maps headers, separators, the date format, map and constants into an import record", () => {
    expect(ok(prices({ row: 1, values: row }))).toEqual({
      isin: "DE0007164600",
      date: "2024-03-28",
      price: 1234.56,
      currency: "EUR",
      type: "close",
      source: "Custodian AG",
    });
  });

  it("reports a value missing from map with field and column", () => {
    expect(errors(prices({ row: 7, values: { ...row, Art: "X" } }))).toEqual([
      {
        row: 7,
        field: "type",
        column: "Art",
        message: expect.stringMatching(/"X" is not in the mapping's map \(known: "S", "M", "NAV"\)/),
      },
    ]);
  });

  it("rejects garbage numbers and impossible dates as row errors, with the schema's other issues", () => {
    const errs = errors(
      prices({ row: 3, values: { ...row, Kurs: "12abc", Kursdatum: "31.02.2024", Währung: "EURO" } }),
    );
    expect(errs.map((e) => [e.field, e.column])).toEqual([
      ["date", "Kursdatum"],
      ["price", "Kurs"],
      ["currency", "Währung"],
    ]);
    expect(errs[0]?.message).toMatch(/"31.02.2024" is not a date in the format dd.MM.yyyy/);
    expect(errs[1]?.message).toMatch(/"12abc" is not a number/);
    expect(errs[2]?.message).toMatch(/ISO 4217/);
  });

  it("says which column is empty when a required field has no value", () => {
    const errs = errors(prices({ row: 2, values: { ...row, ISIN: "  " } }));
    expect(errs).toEqual([
      { row: 2, field: "isin", column: "ISIN", message: 'is required, but column "ISIN" has no value' },
    ]);
  });

  it("says so when a required field is not mapped at all", () => {
    const noType = mapper({
      dataType: "prices",
      format: "csv",
      mapping: { isin: "ISIN", date: "D", price: "P", currency: { value: "EUR" }, source: { value: "x" } },
    });
    expect(errors(noType({ row: 1, values: { ISIN: "DE0007164600", D: "2024-03-28", P: "10" } }))).toEqual([
      { row: 1, field: "type", message: "is required, and the feed's mapping does not map it" },
    ]);
  });
});

describe("numbers", () => {
  const positions = (options: Record<string, unknown>, multiply?: number) =>
    mapper({
      dataType: "positions",
      format: "csv",
      options,
      mapping: {
        portfolioCode: { value: "P1" },
        isin: { value: "DE0007164600" },
        date: { value: "2024-03-28" },
        quantity: multiply === undefined ? "Q" : { source: "Q", multiply },
      },
    });
  const quantity = (m: ReturnType<typeof positions>, q: unknown) => {
    const r = m({ row: 1, values: { Q: q } });
    return r.ok ? r.record.quantity : r.errors[0]?.message;
  };

  it("reads each separator style and refuses what does not fit it", () => {
    const de = positions({ decimalSeparator: ",", thousandsSeparator: "." });
    expect(quantity(de, "1.234,56")).toBe(1234.56);
    expect(quantity(de, "-1.234.567,5")).toBe(-1234567.5);
    expect(quantity(de, "1234,5")).toBe(1234.5);
    expect(quantity(de, "1.23,4")).toMatch(/not a number/);
    expect(quantity(de, "1,234.56")).toMatch(/not a number/);
    const en = positions({ thousandsSeparator: "," });
    expect(quantity(en, "1,234.56")).toBe(1234.56);
    expect(quantity(en, "1234.56")).toBe(1234.56);
    const ch = positions({ thousandsSeparator: "'" });
    expect(quantity(ch, "1'000'000")).toBe(1e6);
    const plain = positions({});
    expect(quantity(plain, "1,234.56")).toMatch(/not a number/);
    expect(quantity(plain, "1.5e3")).toBe(1500);
    for (const junk of ["abc", "1.2.3", "--1", "1 000", "0x10", "Infinity", "NaN", "12abc", "."])
      expect(quantity(plain, junk), junk).toMatch(/not a number/);
    expect(quantity(en, `${"1".repeat(200_000)}x`)).toMatch(/not a number/);
    // A spreadsheet or JSON number arrives as a number.
    expect(quantity(plain, 42.5)).toBe(42.5);
    expect(quantity(plain, true)).toMatch(/not a number/);
  });

  it("scales with multiply exactly", () => {
    expect(quantity(positions({}, 0.01), "12345")).toBe(123.45);
    expect(quantity(positions({}, 0.1), "0.3")).toBe(0.03);
    expect(quantity(positions({ decimalSeparator: "," }, 1000), "1,5")).toBe(1500);
    expect(quantity(positions({}, -1), 7)).toBe(-7);
  });
});

describe("dates", () => {
  const at = (format: string | undefined, value: unknown, feedFormat?: string) => {
    const m = mapper({
      dataType: "fx-rates",
      format: "csv",
      options: feedFormat === undefined ? {} : { dateFormat: feedFormat },
      mapping: {
        baseCurrency: { value: "EUR" },
        quoteCurrency: { value: "USD" },
        rate: { value: 1.08 },
        source: { value: "ECB" },
        date: format === undefined ? "D" : { source: "D", format },
      },
    });
    const r = m({ row: 1, values: { D: value } });
    return r.ok ? r.record.date : "invalid";
  };

  it("reads ISO by default, and each format strictly", () => {
    expect(at(undefined, "2024-03-28")).toBe("2024-03-28");
    expect(at(undefined, "2024-03-28T17:30:00+01:00")).toBe("2024-03-28");
    expect(at(undefined, "2024-3-28")).toBe("invalid");
    expect(at(undefined, "2023-02-29")).toBe("invalid");
    expect(at(undefined, "28.03.2024")).toBe("invalid");
    expect(at("dd.MM.yyyy", "28.03.2024")).toBe("2024-03-28");
    expect(at("dd.MM.yyyy", "8.3.2024")).toBe("invalid");
    expect(at("d.M.yyyy", "8.3.2024")).toBe("2024-03-08");
    expect(at("yyyyMMdd", "20240328")).toBe("2024-03-28");
    expect(at("yyyyMMdd", 20240328)).toBe("2024-03-28");
    expect(at("yyyyMMdd", "2024038")).toBe("invalid");
    expect(at("yyyyMMdd", "20241328")).toBe("invalid");
    expect(at("MM/dd/yyyy", "03/28/2024")).toBe("2024-03-28");
    expect(at("MM/dd/yyyy", "28/03/2024")).toBe("invalid");
    expect(at("dd-MMM-yyyy", "28-Mar-2024")).toBe("2024-03-28");
    expect(at("dd-MMM-yyyy", "29-Feb-2023")).toBe("invalid");
    expect(at("dd.MM.yyyy", "28.03.2024 junk")).toBe("invalid");
  });

  it("lets a field's format override the feed's, and keeps a spreadsheet date's day", () => {
    expect(at(undefined, "28/03/2024", "dd/MM/yyyy")).toBe("2024-03-28");
    expect(at("yyyyMMdd", "20240328", "dd/MM/yyyy")).toBe("2024-03-28");
    expect(at(undefined, new Date(Date.UTC(2024, 2, 28)))).toBe("2024-03-28");
  });
});

describe("mapping nested (json, xml) records", () => {
  const positions = mapper({
    dataType: "positions",
    format: "xml",
    options: { recordPath: "Document.Stmt.Pos" },
    mapping: {
      portfolioCode: "Acct.@id",
      isin: "Instrm.Id[@scheme=ISIN]",
      date: "@asOf",
      quantity: "Bal.Qty",
      costBasis: "Bal.Cost[1]",
      currency: "Bal.Cost[1].@ccy",
    },
  });
  const values = {
    "@asOf": "2024-03-28",
    Acct: { "@id": "P-100" },
    Instrm: {
      Id: [
        { "@scheme": "WKN", "#text": "716460" },
        { "@scheme": "ISIN", "#text": "DE0007164600" },
      ],
    },
    Bal: {
      Qty: [{ "#text": "150", "@unit": "SHS" }, "999"],
      Cost: [
        { "@ccy": "USD", "#text": "1" },
        { "@ccy": "EUR", "#text": "17500.25" },
      ],
    },
  };

  it("follows dotted paths, @attributes, indexes, selectors and the first entry of a list", () => {
    expect(ok(positions({ row: 4, values }))).toEqual({
      portfolioCode: "P-100",
      isin: "DE0007164600",
      date: "2024-03-28",
      quantity: 150,
      costBasis: 17500.25,
      currency: "EUR",
    });
  });

  it("leaves absent what the record does not have, and refuses a path ending on a structure", () => {
    const partial = { ...values, Bal: { Qty: "5" } };
    expect(ok(positions({ row: 1, values: partial }))).toEqual({
      portfolioCode: "P-100",
      isin: "DE0007164600",
      date: "2024-03-28",
      quantity: 5,
    });
    const json = mapper({
      dataType: "positions",
      format: "json",
      mapping: { portfolioCode: "account", isin: "security", date: "date", quantity: "qty" },
    });
    const errs = errors(
      json({ row: 9, values: { account: "P1", security: { isin: "DE0007164600" }, date: "2024-03-28", qty: 1 } }),
    );
    expect(errs).toEqual([
      { row: 9, field: "isin", column: "security", message: '"security" holds a nested structure, not a value' },
    ]);
    const arrayIndex = mapper({
      dataType: "positions",
      format: "json",
      mapping: {
        portfolioCode: "a[0]",
        securityId: "lines[2].id",
        date: { value: "2024-03-28" },
        quantity: "lines[2].q",
      },
    });
    expect(ok(arrayIndex({ row: 1, values: { a: "P1", lines: [{}, {}, { id: "SEC-9", q: -3 }] } }))).toEqual({
      portfolioCode: "P1",
      securityId: "SEC-9",
      date: "2024-03-28",
      quantity: -3,
    });
  });
});

describe("mapping fix-like tag records", () => {
  const reports = mapper({
    dataType: "positions",
    format: "fix",
    options: { msgTypes: ["AP"], dateFormat: "yyyyMMdd" },
    mapping: {
      portfolioCode: "1",
      isin: "48",
      date: "715",
      quantity: "702[703=TQ].704",
      costBasis: "702.704",
      currency: "15",
    },
  });
  const values = {
    "35": "AP",
    "1": "ACC-1",
    "48": "US0378331005",
    "22": "4",
    "715": "20240328",
    "15": "USD",
    "702": [
      { "703": "SOD", "704": "90" },
      { "703": "TQ", "704": "100", "705": "0" },
    ],
  };

  it("reads tags and repeating-group entries by selector and by first entry", () => {
    expect(ok(reports({ row: 2, values }))).toEqual({
      portfolioCode: "ACC-1",
      isin: "US0378331005",
      date: "2024-03-28",
      quantity: 100,
      costBasis: 90,
      currency: "USD",
    });
  });

  it("names the repeating group and a selector when a tag mapped plainly lives only inside a group", () => {
    const plain = mapper({
      dataType: "positions",
      format: "fix",
      options: { msgTypes: ["AP"], dateFormat: "yyyyMMdd" },
      mapping: { portfolioCode: "448", isin: "48", date: "715", quantity: "704", currency: "15" },
    });
    expect(errors(plain({ row: 3, values: { ...values, "453": [{ "448": "ACC-1", "452": "24" }] } }))).toEqual([
      {
        row: 3,
        field: "portfolioCode",
        column: "448",
        message:
          "tag 448 has no value: tag 448 is found only inside the repeating group 453 (NoPartyIDs); name its entry with a selector, e.g. 453[452=…].448",
      },
      {
        row: 3,
        field: "quantity",
        column: "704",
        message:
          "is required, but tag 704 has no value: tag 704 is found only inside the repeating group 702 (NoPositions); name its entry with a selector, e.g. 702[703=…].704",
      },
    ]);
    const nested = mapper({
      dataType: "positions",
      format: "fix",
      options: {},
      mapping: { portfolioCode: "524", isin: "48", date: { value: "2024-03-28" }, quantity: "702[0].704" },
    });
    expect(errors(nested({ row: 1, values }))[0]?.message).toBe(
      "tag 524 has no value: tag 524 is found only inside the repeating groups 702 (NoPositions) › 539 (NoNestedPartyIDs); name its entry with a selector, e.g. 702[703=…].539[538=…].524",
    );
    // A tag of no group, missing, says only that.
    expect(errors(plain({ row: 4, values: { ...values, "715": "" } })).find((e) => e.field === "date")?.message).toBe(
      "is required, but tag 715 has no value",
    );
  });

  it("maps execution reports with map and multiply", () => {
    const fills = mapper({
      dataType: "transactions",
      format: "fix",
      options: { msgTypes: ["8"], dateFormat: "yyyyMMdd" },
      mapping: {
        externalId: "17",
        portfolioCode: "453[452=24].448",
        isin: "48",
        type: { source: "54", map: { "1": "buy", "2": "sell" } },
        tradeDate: "75",
        settlementDate: "64",
        quantity: "32",
        price: { source: "31", multiply: 0.01 },
        currency: "15",
        status: { value: "settled" },
      },
    });
    const exec = {
      "35": "8",
      "17": "EX-1",
      "48": "GB0002634946",
      "54": "2",
      "75": "20240328",
      "64": "20240402",
      "32": "1000",
      "31": "512.5",
      "15": "GBP",
      "453": [
        { "448": "BRK", "452": "1" },
        { "448": "CUST-7", "452": "24" },
      ],
    };
    expect(ok(fills({ row: 1, values: exec }))).toMatchObject({
      externalId: "EX-1",
      portfolioCode: "CUST-7",
      type: "sell",
      quantity: 1000,
      price: 5.125,
      tradeDate: "2024-03-28",
      status: "settled",
    });
    // Each field's own error, and a rule between fields the record carries (it holds whatever the type).
    const errs = errors(fills({ row: 5, values: { ...exec, "54": "5", "64": "20240301" } }));
    expect(errs).toEqual([
      { row: 5, field: "type", column: "54", message: expect.stringMatching(/"5" is not in the mapping's map/) },
      { row: 5, field: "settlementDate", column: "64", message: "must not be before tradeDate" },
    ]);
    const early = errors(fills({ row: 6, values: { ...exec, "64": "20240301" } }));
    expect(early).toEqual([{ row: 6, field: "settlementDate", column: "64", message: "must not be before tradeDate" }]);
    const missing = errors(fills({ row: 7, values: { ...exec, "453": [] } }));
    expect(missing).toEqual([{ row: 7, field: "portfolioId", message: "portfolioId or portfolioCode is required" }]);
  });
});

describe("compileMapping", () => {
  it("refuses a stored feed whose mapping names a field the data type does not have", () => {
    expect(() => compileMapping({ dataType: "prices", format: "csv", options: {}, mapping: { foo: "Foo" } })).toThrow(
      /mapping.foo/,
    );
  });

  it("gives the import record as the import's schema reads it: what the mapping maps, an empty cell left absent", () => {
    const m = mapper({
      dataType: "securities",
      format: "csv",
      mapping: { isin: "ISIN", name: "Name", assetClass: { value: "equity" }, currency: "Ccy", ticker: "Ticker" },
    });
    expect(ok(m({ row: 1, values: { ISIN: "DE0007164600", Name: "SAP SE", Ccy: "EUR", Ticker: "" } }))).toEqual({
      isin: "DE0007164600",
      name: "SAP SE",
      assetClass: "equity",
      currency: "EUR",
    });
    // A number in a text column (a spreadsheet cell) is its text.
    const codes = mapper({
      dataType: "positions",
      format: "xlsx",
      mapping: { portfolioCode: "Depot", isin: "ISIN", date: "Date", quantity: "Qty" },
    });
    expect(
      ok(
        codes({
          row: 1,
          values: { Depot: 4711, ISIN: "DE0007164600", Date: new Date(Date.UTC(2024, 2, 28)), Qty: 10 },
        }),
      ),
    ).toEqual({ portfolioCode: "4711", isin: "DE0007164600", date: "2024-03-28", quantity: 10 });
  });
});
