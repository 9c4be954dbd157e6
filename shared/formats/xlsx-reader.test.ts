import { randomBytes } from "node:crypto";
import { createReadStream, readFileSync } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { crc32, deflateRawSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import * as XLSX from "xlsx";
import { FileFormatError } from "../domain/source-record";
import { readXlsx, type XlsxOptions } from "./xlsx-reader";
import { DEFAULT_ZIP_BOUNDS } from "./zip-bounds";

// Workbooks written by SheetJS (test/fixtures/feeds/xlsx/write-fixtures.cjs), not by exceljs.
const fixtures = join(__dirname, "../../test/fixtures/feeds/xlsx");

async function collect(input: Readable, options: XlsxOptions = {}) {
  const out = [];
  for await (const record of readXlsx(input, options)) out.push(record);
  return out;
}
const fixture = (file: string, options: XlsxOptions = {}) => collect(createReadStream(join(fixtures, file)), options);

interface ZipEntry {
  name: string;
  data: Buffer;
  /** Deflate `data`; the default stores it. */
  deflate?: boolean;
  /** The uncompressed size the headers claim (the truth by default). */
  declaredSize?: number;
  /** Written as a local entry but left out of the central directory. */
  hidden?: boolean;
}

/** A minimal zip writer, so a test can say exactly what the headers claim. */
function zip(entries: ZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name);
    const body = entry.deflate ? deflateRawSync(entry.data) : entry.data;
    const sizes = (header: Buffer, at: number) => {
      header.writeUInt16LE(entry.deflate ? 8 : 0, at);
      header.writeUInt32LE(crc32(entry.data), at + 6);
      header.writeUInt32LE(body.length, at + 10);
      header.writeUInt32LE(entry.declaredSize ?? entry.data.length, at + 14);
      header.writeUInt16LE(name.length, at + 18);
    };
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    sizes(local, 8);
    locals.push(local, name, body);
    if (!entry.hidden) {
      const central = Buffer.alloc(46);
      central.writeUInt32LE(0x02014b50, 0);
      central.writeUInt16LE(20, 4);
      central.writeUInt16LE(20, 6);
      sizes(central, 10);
      central.writeUInt32LE(offset, 42);
      centrals.push(central, name);
    }
    offset += local.length + name.length + body.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(centrals.length / 2, 8);
  end.writeUInt16LE(centrals.length / 2, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

async function refusal(input: Buffer, options: XlsxOptions = {}): Promise<FileFormatError> {
  const error: unknown = await collect(Readable.from([input]), options).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(FileFormatError);
  return error as FileFormatError;
}

describe("readXlsx", () => {
  it("reads the first sheet keyed by header: numbers as numbers, dates as ISO dates, formulas as their results, empty rows skipped", async () => {
    expect(await fixture("positions.xlsx")).toEqual([
      {
        row: 1,
        values: {
          Portfolio: "PF-001",
          ISIN: "US0378331005",
          Security: "Apple Inc.",
          Quantity: 1500,
          Price: 189.25,
          "Position Date": "2026-03-31",
          "Market Value": 283875,
        },
      },
      {
        row: 2,
        values: {
          Portfolio: "PF-001",
          ISIN: "CH0038863350",
          Security: "Nestlé SA",
          Quantity: 200.5,
          Price: 96.1,
          "Position Date": "2026-03-31",
          "Market Value": 19268.05,
        },
      },
      {
        row: 3,
        values: {
          Portfolio: "PF-002",
          ISIN: "DE0007164600",
          Security: "SAP SE",
          Quantity: 75,
          Price: 171.02,
          "Position Date": "2026-04-01",
          "Market Value": 12826.5,
        },
      },
    ]);
  });

  it("picks a sheet by name or by position, and a header further down", async () => {
    expect(await fixture("positions.xlsx", { sheet: "Notes" })).toEqual([
      { row: 1, values: { Note: "Prices are closing prices of the position date." } },
    ]);
    const nav = [
      {
        row: 1,
        values: {
          "Fund Code": "EGE-A",
          "NAV Date": "2026-05-29",
          NAV: 123.4567,
          Currency: "EUR",
          "Shares Outstanding": 1250000,
        },
      },
      {
        row: 2,
        values: {
          "Fund Code": "EGE-B",
          "NAV Date": "2026-05-29",
          NAV: 98.01,
          Currency: "USD",
          "Shares Outstanding": 40000,
        },
      },
    ];
    expect(await fixture("nav-report.xlsx", { sheet: 2, headerRow: 3 })).toEqual(nav);
    expect(await fixture("nav-report.xlsx", { sheet: "NAV", headerRow: 3 })).toEqual(nav);
    expect((await fixture("nav-report.xlsx"))[0]).toEqual({
      row: 1,
      values: { "NAV report": "Generated by the fund administrator" },
    });
  });

  it("streams a large sheet written by SheetJS with bounded heap growth", async () => {
    const count = 100_000;
    const rows: unknown[][] = [["ISIN", "Price Date", "Price", "Currency"]];
    for (let i = 0; i < count; i += 1)
      rows.push([`XS${String(i).padStart(10, "0")}`, new Date(Date.UTC(2026, 0, 1 + (i % 365))), i + 0.25, "EUR"]);
    const book = XLSX.utils.book_new();
    XLSX.utils.book_append_sheet(
      book,
      XLSX.utils.aoa_to_sheet(rows, { cellDates: false, dateNF: "yyyy-mm-dd" }),
      "Prices",
    );
    const file = XLSX.write(book, { type: "buffer", bookType: "xlsx", bookSST: true, compression: true }) as Buffer;
    rows.length = 0;
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    gc();
    const before = process.memoryUsage().heapUsed;
    let peak = before;
    let seen = 0;
    let last: unknown;
    for await (const record of readXlsx(Readable.from([file]), {})) {
      seen += 1;
      last = record;
      if (seen % 20_000 === 0) {
        gc();
        peak = Math.max(peak, process.memoryUsage().heapUsed);
      }
    }
    expect(seen).toBe(count);
    expect(last).toEqual({
      row: count,
      values: { ISIN: "XS0000099999", "Price Date": "2026-12-21", Price: 99999.25, Currency: "EUR" },
    });
    // The shared strings (100,000 ISINs) are held by design; the rows are not.
    expect(peak - before).toBeLessThan(24 * 2 ** 20);
    // Writing the 100,000-row workbook with SheetJS takes most of the time; a loaded 2-core machine needs the margin.
  }, 60_000);

  it("refuses a sheet the workbook does not have", async () => {
    await expect(fixture("positions.xlsx", { sheet: "Trades" })).rejects.toThrow(FileFormatError);
    await expect(fixture("positions.xlsx", { sheet: 3 })).rejects.toThrow(/no sheet 3/);
  });

  it("refuses a file that is not a zip, and a truncated workbook", async () => {
    await refusal(Buffer.from("Portfolio,ISIN\nPF-001,US0378331005\n"));
    const workbook = readFileSync(join(fixtures, "positions.xlsx"));
    await refusal(workbook.subarray(0, workbook.length - 400));
    const damaged = Buffer.from(workbook);
    damaged.fill(0x41, 2000, 2400);
    await refusal(damaged);
  });

  it("refuses a zip bomb from its central directory before inflating it", async () => {
    const zeros = Buffer.alloc(50 * 2 ** 20);
    const bomb = zip([{ name: "xl/worksheets/sheet1.xml", data: zeros, deflate: true }]);
    expect(bomb.length).toBeLessThan(100_000);
    const started = Date.now();
    const error = await refusal(bomb);
    expect(error.message).toMatch(/compression ratio/);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it("stops a bomb whose headers lie about its size while inflating", async () => {
    const zeros = Buffer.alloc(50 * 2 ** 20);
    const compressed = deflateRawSync(zeros).length;
    const bomb = zip([{ name: "xl/sharedStrings.xml", data: zeros, deflate: true, declaredSize: compressed * 2 }]);
    const heapBefore = process.memoryUsage().heapUsed;
    const error = await refusal(bomb);
    expect(error.message).toMatch(/too many bytes/);
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(40 * 2 ** 20);
  });

  it("refuses too many entries, too much in total, and an oversized shared-strings part", async () => {
    const many = Array.from({ length: DEFAULT_ZIP_BOUNDS.maxEntries + 1 }, (_, i) => ({
      name: `x/${i}.xml`,
      data: Buffer.from("<a/>"),
    }));
    expect((await refusal(zip(many))).message).toMatch(/entries/);
    const text = Buffer.from(`<x>${randomBytes(1_500_000).toString("base64")}</x>`);
    const bounds = {
      ...DEFAULT_ZIP_BOUNDS,
      maxUncompressedBytes: 2 ** 20,
      maxInMemoryEntryBytes: 2 ** 20,
      maxTextRunBytes: 2 ** 30,
    };
    expect(
      (await refusal(zip([{ name: "xl/worksheets/sheet1.xml", data: text, deflate: true }]), { bounds })).message,
    ).toMatch(/inflates to more than/);
    const sharedStringsOnly = { ...bounds, maxUncompressedBytes: 2 ** 30 };
    expect(
      (await refusal(zip([{ name: "xl/sharedStrings.xml", data: text, deflate: true }]), { bounds: sharedStringsOnly }))
        .message,
    ).toMatch(/sharedStrings\.xml is larger/);
  });

  it("refuses an entry hidden from the central directory, which a front-to-back reader would see", async () => {
    const bomb = zip([
      { name: "xl/workbook.xml", data: Buffer.from("<workbook/>") },
      { name: "xl/sharedStrings.xml", data: Buffer.alloc(2 ** 20), deflate: true, hidden: true },
      { name: "xl/styles.xml", data: Buffer.from("<styleSheet/>") },
    ]);
    expect((await refusal(bomb)).message).toMatch(/unlisted data/);
  });
});
