import { createReadStream } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { MAX_CSV_COLUMNS, readCsv, type CsvOptions } from "./csv-reader";
import { FileFormatError, type SourceRecord } from "../domain/source-record";

const fixtures = join(__dirname, "../../test/fixtures/feeds/csv");

async function collect(input: Readable, options: CsvOptions = {}): Promise<SourceRecord[]> {
  const records: SourceRecord[] = [];
  for await (const record of readCsv(input, options)) records.push(record);
  return records;
}

/** The bytes split into chunks of `size`, to cross every boundary a real stream might cut. */
function chunked(bytes: Buffer, size: number): Readable {
  const chunks: Buffer[] = [];
  for (let start = 0; start < bytes.length; start += size) chunks.push(bytes.subarray(start, start + size));
  return Readable.from(chunks, { objectMode: false });
}

const text = (value: string, encoding: BufferEncoding = "utf8") => chunked(Buffer.from(value, encoding), 64 * 1024);

async function failure(input: Readable, options: CsvOptions = {}): Promise<FileFormatError> {
  const error: unknown = await collect(input, options).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(FileFormatError);
  return error as FileFormatError;
}

describe("readCsv", () => {
  it("reads a custodian's windows-1252 positions file with a BOM, ';', title lines above the header and quoted fields", async () => {
    const records = await collect(createReadStream(join(fixtures, "custodian-positions-cp1252.csv")), {
      delimiter: ";",
      headerRow: 4,
      encoding: "windows-1252",
    });
    expect(records.map((record) => record.row)).toEqual([1, 2, 3, 4, 5]);
    expect(records[0]?.values).toEqual({
      Depot: "DE-4711-01",
      ISIN: "DE0007164600",
      Bezeichnung: "SAP SE Inhaber-Aktien o.N.",
      "Nominal/Stück": "1.250",
      Währung: "EUR",
      Kurs: "229,85",
      Kurswert: "287.312,50",
      "Kurswert EUR": "287.312,50",
      Stichtag: "31.12.2024",
    });
    expect(records[1]?.values["Bezeichnung"]).toBe("Nestlé S.A.; Namens-Aktien");
    expect(records[2]?.values["Bezeichnung"]).toBe('3,125 % Société Générale "Green" 21/31');
    // 0x96 and 0x80 are an en dash and the euro sign in windows-1252 (control characters in ISO-8859-1).
    expect(records[4]?.values["Bezeichnung"]).toBe("Europ. Finanzstab.fazilität EO-MTN 24/34 – €");
  });

  it("reads the same file the same way when it arrives one byte at a time", async () => {
    const { readFileSync } = await import("node:fs");
    const bytes = readFileSync(join(fixtures, "custodian-positions-cp1252.csv"));
    const options: CsvOptions = { delimiter: ";", headerRow: 4, encoding: "windows-1252" };
    const whole = await collect(chunked(bytes, bytes.length), options);
    expect(await collect(chunked(bytes, 1), options)).toEqual(whole);
    expect(whole).toHaveLength(5);
  });

  it("reads a pipe-delimited transactions file with a quoted delimiter, doubled quotes and a line break inside a field", async () => {
    const records = await collect(createReadStream(join(fixtures, "transactions-pipe.csv")), { delimiter: "|" });
    expect(records).toHaveLength(4);
    expect(records[0]).toEqual({
      row: 1,
      values: {
        trade_id: "T-20241202-001",
        portfolio_code: "PF-GROWTH-01",
        trade_date: "2024-12-02",
        settlement_date: "2024-12-04",
        type: "BUY",
        isin: "US0378331005",
        quantity: "100",
        price: "239.59",
        currency: "USD",
        gross_amount: "23959.00",
        comment: "",
      },
    });
    expect(records[1]?.values["comment"]).toBe("partial fill | venue XSWX");
    expect(records[2]?.values["comment"]).toBe('client note: "rebalance"\nsecond line');
    expect(records[3]).toMatchObject({ row: 4, values: { type: "DIVIDEND", comment: "Q4 dividend" } });
  });

  it("reads tab-separated and comma-separated files, utf-8 with a BOM by default", async () => {
    const tsv = await collect(text("\uFEFFisin\tprice\nUS0378331005\t1.5\n"), { delimiter: "\t" });
    expect(tsv).toEqual([{ row: 1, values: { isin: "US0378331005", price: "1.5" } }]);
    const csv = await collect(text('\uFEFFisin,name\r\nCH0038863350,"Nestlé, S.A."\r\n'));
    expect(csv).toEqual([{ row: 1, values: { isin: "CH0038863350", name: "Nestlé, S.A." } }]);
  });

  it("decodes iso-8859-1 byte for byte", async () => {
    const records = await collect(text("name;note\nMüller;\x80\n", "latin1"), {
      delimiter: ";",
      encoding: "iso-8859-1",
    });
    expect(records[0]?.values).toEqual({ name: "Müller", note: "\u0080" });
  });

  it("refuses a windows-1252 file read as utf-8 rather than inventing replacement characters", async () => {
    const error = await failure(chunked(Buffer.from("name;city\nMüller;Zürich\n", "latin1"), 8), { delimiter: ";" });
    expect(error.message).toMatch(/not valid utf-8/);
  });

  it("skips empty lines and rows of empty fields without counting them, and numbers rows after the header", async () => {
    const records = await collect(text("a,b\n\n1,2\n,\n\n3,4\n\n"));
    expect(records).toEqual([
      { row: 1, values: { a: "1", b: "2" } },
      { row: 2, values: { a: "3", b: "4" } },
    ]);
  });

  it("tolerates a delimiter closing every line, and trims header names", async () => {
    const records = await collect(text(" isin ; qty ;\nX1;5;\n"), { delimiter: ";" });
    expect(records).toEqual([{ row: 1, values: { isin: "X1", qty: "5" } }]);
    const error = await failure(text("isin;qty;\nX1;5;oops\n"), { delimiter: ";" });
    expect(error.message).toMatch(/row 1 has a value in column 3, which has no header/);
  });

  it("takes the first non-empty line from headerRow on as the header", async () => {
    const records = await collect(text("Report 2024-12-31\n;;\n\nisin;qty\nX1;5\n"), { delimiter: ";", headerRow: 2 });
    expect(records).toEqual([{ row: 1, values: { isin: "X1", qty: "5" } }]);
  });

  it("keeps a column named __proto__ as a plain value", async () => {
    const [record] = await collect(text("__proto__,b\nx,y\n"));
    expect(Object.getPrototypeOf(record?.values)).toBe(Object.prototype);
    expect(Object.keys(record?.values ?? {})).toEqual(["__proto__", "b"]);
  });

  it("refuses a ragged row, naming it", async () => {
    const error = await failure(text("a,b,c\n1,2,3\n4,5\n6,7,8\n"));
    expect(error.row).toBe(2);
    expect(error.message).toBe("row 2 has 2 fields, the header 3");
  });

  it("refuses an unterminated quote, naming the row", async () => {
    const error = await failure(text('a,b\n1,2\n3,"four\n5,6\n'));
    expect(error.row).toBe(2);
    expect(error.message).toMatch(/row 2: a quoted field is not closed/);
  });

  it("refuses a runaway quoted field in bounded memory", async () => {
    async function* runaway() {
      yield Buffer.from('a,b\n1,"');
      for (let index = 0; index < 40; index += 1) yield Buffer.alloc(64 * 1024, "x");
    }
    const error = await failure(Readable.from(runaway()));
    expect(error.row).toBe(1);
    expect(error.message).toMatch(/longer than/);
  });

  it("refuses text after a closing quote", async () => {
    const error = await failure(text('a,b\n1,"2"x\n'));
    expect(error.message).toMatch(/row 1: a quoted field has text after its closing quote/);
  });

  it("refuses a header of more columns than a spreadsheet holds", async () => {
    const header = Array.from({ length: MAX_CSV_COLUMNS + 1 }, (_, i) => String(i + 1)).join(",");
    expect((await failure(text(`${header}\n`))).message).toBe(
      `the header has ${MAX_CSV_COLUMNS + 1} columns, more than ${MAX_CSV_COLUMNS}`,
    );
  });

  it("refuses duplicate, empty or missing header names", async () => {
    expect((await failure(text("isin,qty,isin\n1,2,3\n"))).message).toBe('the header names column "isin" twice');
    expect((await failure(text("isin,,qty\n1,2,3\n"))).message).toBe("the header's column 2 has no name");
    expect((await failure(text(""))).message).toBe("the file has no header row");
  });

  it("stops reading the file when the consumer stops", async () => {
    let produced = 0;
    async function* endless() {
      yield Buffer.from("n\n");
      for (;;) {
        produced += 1;
        yield Buffer.from("1\n".repeat(1000));
      }
    }
    let seen = 0;
    for await (const record of readCsv(Readable.from(endless()), {})) {
      seen = record.row;
      if (seen === 5) break;
    }
    expect(seen).toBe(5);
    expect(produced).toBeLessThan(100);
  });

  it("streams 200,000 rows in bounded memory", async () => {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const total = 200_000;
    async function* prices() {
      yield Buffer.from("isin;date;price;currency\n");
      let batch = "";
      for (let index = 1; index <= total; index += 1) {
        batch += `LU${String(index).padStart(10, "0")};31.12.2024;"${(index / 7).toFixed(4).replace(".", ",")}";EUR\n`;
        if (index % 500 === 0) {
          yield Buffer.from(batch);
          batch = "";
        }
      }
    }
    gc();
    const baseline = process.memoryUsage().heapUsed;
    let peak = 0;
    let last: SourceRecord | undefined;
    for await (const record of readCsv(Readable.from(prices()), { delimiter: ";" })) {
      last = record;
      if (record.row % 25_000 === 0) {
        gc();
        peak = Math.max(peak, process.memoryUsage().heapUsed - baseline);
      }
    }
    expect(last).toEqual({
      row: total,
      values: { isin: "LU0000200000", date: "31.12.2024", price: "28571,4286", currency: "EUR" },
    });
    // The file is about 9 MB; holding it or its rows would grow the heap far beyond this.
    expect(peak).toBeLessThan(8 << 20);
  });
});
