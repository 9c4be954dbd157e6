import { createReadStream } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readCsv } from "../formats/csv-reader";
import { readJson } from "../formats/json-reader";
import type { RecordReader } from "../formats/record-reader";
import { feedCreateSchema, type FeedDefinition } from "./feed";
import { compileMapping } from "./feed-mapping";
import { dryRunSummary, RowValidation } from "./feed-validation";

const fixtures = join(__dirname, "../../test/fixtures/feeds/mapping");

/** Reads a fixture with a format reader, maps and validates every record: the validation outcome and the dry run's summary of it. */
async function run<O>(file: string, reader: RecordReader<O>, feed: FeedDefinition, options: O) {
  const map = compileMapping(feed);
  const validation = new RowValidation(feed.validation);
  for await (const record of reader(createReadStream(join(fixtures, file)), options)) validation.accept(map(record));
  const outcome = validation.outcome();
  return { summary: dryRunSummary(outcome), outcome };
}

const feed = (body: Record<string, unknown>): FeedDefinition =>
  feedCreateSchema.parse({ name: "f", provider: "p", filePattern: "*", ...body });

describe("feeds over real files", () => {
  it("maps a windows-1252 csv with a title line, ; and German numbers and dates", async () => {
    const positions = feed({
      dataType: "positions",
      format: "csv",
      options: {
        delimiter: ";",
        encoding: "windows-1252",
        headerRow: 2,
        decimalSeparator: ",",
        thousandsSeparator: ".",
        dateFormat: "dd.MM.yyyy",
      },
      mapping: {
        portfolioCode: "Depot",
        isin: "ISIN",
        date: "Stichtag",
        quantity: "Bestand",
        costBasis: "Einstandswert",
        currency: "Währung",
      },
      validation: { onRowError: "skip-row", maxRejectedRows: 1 },
    });
    const { summary, outcome } = await run("positions_de.csv", readCsv, positions, positions.options);
    expect(summary.preview).toEqual([
      {
        portfolioCode: "P-100",
        isin: "DE0007164600",
        date: "2024-03-28",
        quantity: 1500,
        costBasis: 187234.5,
        currency: "EUR",
      },
      {
        portfolioCode: "P-100",
        isin: "US0378331005",
        date: "2024-03-28",
        quantity: 250.5,
        costBasis: 40000,
        currency: "USD",
      },
    ]);
    expect(summary.errors.map((e) => [e.row, e.field, e.column])).toEqual([
      [3, "isin", "ISIN"],
      [3, "quantity", "Bestand"],
    ]);
    expect(outcome).toMatchObject({ status: "accepted", received: 3, valid: 2, rejected: 1 });
  });

  it("maps nested json records with selectors, map and a US date format; reject-file rejects the file", async () => {
    const transactions = feed({
      dataType: "transactions",
      format: "json",
      options: { recordPath: "data.transactions", dateFormat: "MM/dd/yyyy" },
      mapping: {
        externalId: "ref",
        portfolioCode: "account.code",
        isin: "instrument.ids[scheme=ISIN].id",
        type: { source: "side", map: { B: "buy", S: "sell" } },
        tradeDate: "trade.date",
        settlementDate: "trade.settle",
        quantity: "qty",
        price: "px",
        fees: "fees",
        currency: "ccy",
      },
    });
    const { summary, outcome } = await run("transactions.json", readJson, transactions, transactions.options);
    expect(summary).toMatchObject({ received: 3, valid: 2, rejected: 1 });
    expect(summary.preview[0]).toEqual({
      externalId: "T-1",
      portfolioCode: "P-100",
      isin: "DE0007164600",
      type: "buy",
      tradeDate: "2024-03-27",
      settlementDate: "2024-03-29",
      quantity: 100,
      price: 187.5,
      fees: 4.95,
      currency: "EUR",
    });
    expect(summary.errors).toEqual([
      { row: 3, field: "type", column: "side", message: expect.stringMatching(/"X" is not in the mapping's map/) },
    ]);
    expect(outcome).toMatchObject({ status: "rejected", valid: 2, rejected: 1 });
  });
});
