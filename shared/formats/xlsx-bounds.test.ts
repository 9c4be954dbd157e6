import { Readable } from "node:stream";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { sharedStringRows, sharedStrings, workbook } from "../../test/hostile-workbooks";
import { FileFormatError, type SourceRecord } from "../domain/source-record";
import { readXlsx, type XlsxOptions } from "./xlsx-reader";
import { DEFAULT_ZIP_BOUNDS } from "./zip-bounds";

async function collect(bytes: Buffer, options: XlsxOptions = {}): Promise<SourceRecord[]> {
  const out: SourceRecord[] = [];
  for await (const record of readXlsx(Readable.from([bytes]), options)) out.push(record);
  return out;
}

async function refusal(bytes: Buffer, options: XlsxOptions = {}): Promise<FileFormatError> {
  const error: unknown = await collect(bytes, options).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(FileFormatError);
  return error as FileFormatError;
}

describe("XLSX: what one workbook makes the reader hold is bounded (finding 8)", () => {
  it("the probe's workbook, 2.4 million shared strings: refused from its declared size, before anything is held", async () => {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const file = workbook({ sheet: sharedStringRows(1), sharedStrings: sharedStrings(2_400_000) });
    gc();
    const before = process.memoryUsage().heapUsed;
    const error = await refusal(file);
    expect(error.message).toBe(
      `The zip entry xl/sharedStrings.xml is larger than ${DEFAULT_ZIP_BOUNDS.maxInMemoryEntryBytes} bytes`,
    );
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(32 << 20);
  });

  it("shared strings small in bytes but over the element bound: refused while inflating, naming the part and what to do", async () => {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    // 1.1 million short texts (`<si><t>k3x9</t></si>`, two elements each) are 20 MB, under the byte bound.
    const short = sharedStrings(1_100_000, (i) => i.toString(36));
    expect(short.length).toBeLessThan(DEFAULT_ZIP_BOUNDS.maxInMemoryEntryBytes);
    gc();
    const before = process.memoryUsage().heapUsed;
    const error = await refusal(workbook({ sheet: sharedStringRows(1), sharedStrings: short }));
    expect(error.message).toBe(
      `The workbook part xl/sharedStrings.xml has more than ${DEFAULT_ZIP_BOUNDS.maxInMemoryEntryElements} XML elements (about 1000000 distinct texts); the service holds this part in memory whole and reads it only up to that size: split the workbook, or send the data as CSV`,
    );
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(64 << 20);
  });

  it("one run of a workbook at the bounds (990,000 shared strings) holds well under 150 MB", async () => {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const texts = (i: number): string =>
      i < 4 ? (["ISIN", "Name", "DE0007164600", "SAP SE"][i] ?? "") : `${i.toString(36)}-${"x".repeat(8)}`;
    const file = workbook({ sheet: sharedStringRows(2), sharedStrings: sharedStrings(990_000, texts) });
    gc();
    const before = process.memoryUsage().heapUsed;
    let held = 0;
    // Measured while the rows are read: the shared strings are held then.
    for await (const record of readXlsx(Readable.from([file]), {})) {
      expect(record.values).toEqual({ ISIN: "DE0007164600", Name: "SAP SE" });
      gc();
      held = process.memoryUsage().heapUsed - before;
    }
    expect(held).toBeGreaterThan(10 << 20);
    expect(held).toBeLessThan(150 << 20);
  });

  it("reads a workbook at the bounds, and refuses one element, cell or byte beyond them", async () => {
    // A text of n characters is a run of n + 2 bytes after its `<` ("t>" and the text).
    const bounds = { ...DEFAULT_ZIP_BOUNDS, maxInMemoryEntryElements: 2 * 4 + 1, maxRowCells: 3, maxTextRunBytes: 300 };
    const fits = workbook({
      sheet: sharedStringRows(2),
      sharedStrings: sharedStrings(4, (i) => (i === 3 ? "x".repeat(298) : `s${i}`)),
    });
    expect(await collect(fits, { bounds })).toEqual([{ row: 1, values: { s0: "s2", s1: "x".repeat(298) } }]);

    const strings = await refusal(workbook({ sheet: sharedStringRows(2), sharedStrings: sharedStrings(5) }), {
      bounds,
    });
    expect(strings.message).toMatch(/^The workbook part xl\/sharedStrings\.xml has more than 9 XML elements/);
    const wide = `<row r="1">${["A", "B", "C", "D"].map((c) => `<c r="${c}1" t="inlineStr"><is><t>${c}</t></is></c>`).join("")}</row>`;
    expect((await refusal(workbook({ sheet: wide }), { bounds })).message).toBe(
      "The workbook part xl/worksheets/sheet1.xml has a row of more than 3 cells (Excel's column limit)",
    );
    const long = workbook({
      sheet: sharedStringRows(2),
      sharedStrings: sharedStrings(4, (i) => (i === 3 ? "x".repeat(299) : `s${i}`)),
    });
    expect((await refusal(long, { bounds })).message).toBe(
      "The workbook part xl/sharedStrings.xml has a text or tag longer than 300 bytes (Excel holds at most 32,767 characters in a cell)",
    );
  });

  it("counts cells per row, not per sheet: many rows of a few cells read", async () => {
    const bounds = { ...DEFAULT_ZIP_BOUNDS, maxRowCells: 2 };
    const records = await collect(workbook({ sheet: sharedStringRows(50), sharedStrings: sharedStrings(100) }), {
      bounds,
    });
    expect(records).toHaveLength(49);
  });
});
