import { describe, expect, it } from "vitest";
import { feedCreateSchema } from "./feed";
import { compileMapping, type MappedRow } from "./feed-mapping";
import { dryRunSummary, RowValidation } from "./feed-validation";

const good = (row: number): MappedRow => ({ ok: true, row, record: { isin: "DE0007164600", row } });
const bad = (row: number, fields = ["price"]): MappedRow => ({
  ok: false,
  row,
  errors: fields.map((field) => ({ row, field, column: field.toUpperCase(), message: "is not a number" })),
});

describe("RowValidation, reject-file", () => {
  it("accepts a clean file", () => {
    const v = new RowValidation({ onRowError: "reject-file" });
    expect([good(1), good(2)].map((r) => v.accept(r))).toEqual([true, true]);
    expect(v.outcome()).toEqual({
      status: "accepted",
      reason: "2 rows valid",
      received: 2,
      valid: 2,
      rejected: 0,
      errors: [],
      errorsTruncated: false,
      rejectedRows: [],
      preview: [
        { isin: "DE0007164600", row: 1 },
        { isin: "DE0007164600", row: 2 },
      ],
    });
  });

  it("rejects the whole file on one bad row, reporting every error up to the cap", () => {
    const v = new RowValidation({ onRowError: "reject-file" }, 3);
    const passed = [good(1), bad(2, ["price", "date"]), good(3), bad(4, ["isin", "currency"]), bad(5)].map((r) =>
      v.accept(r),
    );
    expect(passed).toEqual([true, false, false, false, false]);
    expect(v.fileRejected).toBe(true);
    const outcome = v.outcome();
    expect(outcome).toMatchObject({
      status: "rejected",
      received: 5,
      valid: 2,
      rejected: 3,
      errorsTruncated: true,
      reason: expect.stringMatching(/3 rows rejected; the feed rejects the whole file/),
    });
    expect(outcome.errors.map((e) => [e.row, e.field])).toEqual([
      [2, "price"],
      [2, "date"],
      [4, "isin"],
    ]);
  });
});

describe("RowValidation, skip-row", () => {
  it("passes good rows and reports each rejected row", () => {
    const v = new RowValidation({ onRowError: "skip-row" });
    const passed = [good(1), bad(2), good(3), bad(4, ["date", "isin"])].map((r) => v.accept(r));
    expect(passed).toEqual([true, false, true, false]);
    const outcome = v.outcome();
    expect(outcome.status).toBe("accepted");
    expect(outcome.status === "accepted" && outcome.rejectedRows.map((r) => [r.row, r.errors.length])).toEqual([
      [2, 1],
      [4, 2],
    ]);
    expect(outcome).toMatchObject({ received: 4, valid: 2, rejected: 2 });
  });

  it("accepts up to maxRejectedRows rejected rows and rejects the file beyond", () => {
    const atMax = new RowValidation({ onRowError: "skip-row", maxRejectedRows: 2 });
    for (const r of [bad(1), good(2), bad(3), good(4)]) atMax.accept(r);
    expect(atMax.outcome().status).toBe("accepted");

    const beyond = new RowValidation({ onRowError: "skip-row", maxRejectedRows: 2 });
    const passed = [bad(1), good(2), bad(3), good(4), bad(5), good(6)].map((r) => beyond.accept(r));
    expect(passed).toEqual([false, true, false, true, false, false]);
    expect(beyond.fileRejected).toBe(true);
    expect(beyond.outcome()).toMatchObject({
      status: "rejected",
      rejected: 3,
      valid: 3,
      reason: expect.stringMatching(/more than the feed's maxRejectedRows \(2\)/),
    });
  });

  it("keeps memory bounded over a long file of bad rows", () => {
    const v = new RowValidation({ onRowError: "skip-row" });
    for (let row = 1; row <= 200_000; row += 1) v.accept(row % 2 === 0 ? good(row) : bad(row));
    const outcome = v.outcome();
    expect(outcome).toMatchObject({
      status: "accepted",
      received: 200_000,
      valid: 100_000,
      rejected: 100_000,
      errorsTruncated: true,
    });
    expect(outcome.errors).toHaveLength(1000);
    expect(outcome.status === "accepted" && outcome.rejectedRows).toHaveLength(1000);
  });
});

describe("RowValidation, files that load nothing or do not match the mapping", () => {
  it("rejects a file with no valid row under skip-row, and an empty file, whatever onRowError says", () => {
    const allBad = new RowValidation({ onRowError: "skip-row" });
    for (const r of [bad(1), bad(2)]) allBad.accept(r);
    expect(allBad.outcome()).toMatchObject({
      status: "rejected",
      valid: 0,
      rejected: 2,
      reason: "no row is valid (2 rows rejected)",
    });
    for (const onRowError of ["skip-row", "reject-file"] as const) {
      expect(new RowValidation({ onRowError }).outcome()).toMatchObject({
        status: "rejected",
        received: 0,
        reason: "the file has no data rows",
      });
    }
  });

  it("reports a mapped column the header lacks once, at row 0, listing the header; no row repeats it; the file is rejected", () => {
    const feed = feedCreateSchema.parse({
      name: "Prices",
      provider: "Vendor",
      dataType: "prices",
      format: "csv",
      filePattern: "prices_*.csv",
      validation: { onRowError: "skip-row" },
      mapping: {
        isin: "ISIN",
        date: "Datum",
        price: "Close",
        currency: { value: "EUR" },
        type: { value: "close" },
        source: { value: "Vendor" },
      },
    });
    const map = compileMapping(feed);
    const validation = new RowValidation(feed.validation);
    validation.header(map.header(["ISIN", "Date", "Close"]));
    for (let row = 1; row <= 4; row += 1)
      validation.accept(map({ row, values: { ISIN: "DE0007164600", Date: "2024-03-28", Close: "10" } }));
    const summary = dryRunSummary(validation.outcome());
    expect(summary).toMatchObject({
      received: 4,
      valid: 0,
      rejected: 4,
      verdict: "rejected",
      reason: `the file's header lacks the mapped column "Datum"; the file does not match the feed's mapping`,
    });
    expect(summary.errors).toEqual([
      {
        row: 0,
        field: "date",
        column: "Datum",
        message: `the mapped column "Datum" is not in the file's header (its columns: "ISIN", "Date", "Close")`,
      },
    ]);
  });
});

describe("dryRunSummary", () => {
  it("summarises a sample as its first pass decides: counts, errors with row and field, the first 20 mapped records, the verdict", () => {
    const feed = feedCreateSchema.parse({
      name: "Prices",
      provider: "Vendor",
      dataType: "prices",
      format: "csv",
      filePattern: "prices_*.csv",
      options: { decimalSeparator: "," },
      mapping: {
        isin: "ISIN",
        date: "Date",
        price: "Close",
        currency: { value: "EUR" },
        type: { value: "close" },
        source: { value: "Vendor" },
      },
    });
    const map = compileMapping(feed);
    const validation = new RowValidation(feed.validation);
    for (let row = 1; row <= 25; row += 1) {
      const close = row === 7 ? "n/a" : `${row},5`;
      validation.accept(map({ row, values: { ISIN: "DE0007164600", Date: "2024-03-28", Close: close } }));
    }
    const summary = dryRunSummary(validation.outcome());
    // The feed rejects a file on any row error (the default), so this one would be quarantined.
    expect(summary).toMatchObject({
      received: 25,
      valid: 24,
      rejected: 1,
      verdict: "rejected",
      reason: "1 row rejected; the feed rejects the whole file on any row error",
      errorsTruncated: false,
    });
    expect(summary.errors).toEqual([{ row: 7, field: "price", column: "Close", message: '"n/a" is not a number' }]);
    expect(summary.preview).toHaveLength(20);
    expect(summary.preview[0]).toEqual({
      isin: "DE0007164600",
      date: "2024-03-28",
      price: 1.5,
      currency: "EUR",
      type: "close",
      source: "Vendor",
    });
    expect(summary.preview[6]).toMatchObject({ price: 8.5 });
  });
});
