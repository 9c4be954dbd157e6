import type ExcelJS from "exceljs";
import { createReadStream } from "node:fs";
import { Readable } from "node:stream";
import { crc32 } from "node:zlib";
import { FileFormatError, type SourceRecord } from "../domain/source-record";
import type { RecordReader } from "./record-reader";
import { loadExcelJs } from "./exceljs";
import { DEFAULT_ZIP_BOUNDS, spoolCheckedZip, type CheckedZip, type ZipBounds, type ZipRecord } from "./zip-bounds";

/** What a feed says about its XLSX files (validated by the feed schema before it gets here). */
export interface XlsxOptions {
  /** The sheet's name, or its 1-based position in the workbook. Default the first sheet. */
  sheet?: string | number;
  /** 1-based row of the header; the rows above it are skipped. Default 1. */
  headerRow?: number;
  /** Zip-bomb limits; the defaults suit files up to a few million cells. */
  bounds?: ZipBounds;
  /** Told the header's column names once, before the first record (also for a sheet of no data rows). */
  onHeader?: (columns: readonly string[]) => void;
}

/**
 * Reads one sheet of a workbook with exceljs's streaming reader, after the zip has passed
 * `spoolCheckedZip`. Values are keyed by the header row's text: numbers stay numbers, date cells
 * (a number with a date format, as exceljs reports them) become `YYYY-MM-DD` strings (or a full
 * ISO timestamp when the cell has a time of day), text and booleans as they are, rich text as its
 * plain text, formulas as their cached result; empty cells are absent and empty rows are skipped
 * and not counted. A cell with an Excel error (`#N/A`) is a FileFormatError naming the row.
 */
export const readXlsx: RecordReader<XlsxOptions> = (input, options) => xlsxRecords(input, options);

async function* xlsxRecords(input: Readable, options: XlsxOptions): AsyncGenerator<SourceRecord> {
  const zip = await spoolCheckedZip(input, options.bounds ?? DEFAULT_ZIP_BOUNDS);
  let row = 0;
  try {
    const { stream } = await loadExcelJs();
    const workbook = new stream.xlsx.WorkbookReader(partsInReadingOrder(zip), {
      worksheets: "emit",
      sharedStrings: "cache",
      styles: "cache",
      hyperlinks: "ignore",
      entries: "ignore",
    });
    const headerRow = options.headerRow ?? 1;
    let found = false;
    for await (const worksheet of workbook) {
      if (found || !isWanted(workbook, worksheet, options.sheet)) {
        await drain(worksheet);
        continue;
      }
      found = true;
      let header: Map<number, string> | undefined;
      for await (const excelRow of worksheet) {
        if (excelRow.number < headerRow) continue;
        if (header === undefined) {
          if (excelRow.number > headerRow) throw new FileFormatError(`The header row ${headerRow} is empty`);
          header = headerNames(excelRow);
          options.onHeader?.([...header.values()]);
          continue;
        }
        const values = rowValues(header, excelRow, row + 1);
        if (Object.keys(values).length === 0) continue;
        row += 1;
        yield { row, values };
      }
      if (header === undefined) throw new FileFormatError(`The sheet has no header row ${headerRow}`);
    }
    if (!found) throw new FileFormatError(`The workbook has no sheet ${JSON.stringify(options.sheet ?? 1)}`);
  } catch (error) {
    throw error instanceof FileFormatError
      ? error
      : new FileFormatError(
          `Not a readable XLSX file: ${error instanceof Error ? error.message : String(error)}`,
          row + 1,
        );
  } finally {
    await zip.dispose();
  }
}

const WORKBOOK_PARTS = ["xl/_rels/workbook.xml.rels", "xl/workbook.xml", "xl/styles.xml", "xl/sharedStrings.xml"];
const SHEET_PART = /^xl\/worksheets\/sheet\d+\.xml$/;

/**
 * The checked zip's entries replayed in the order exceljs needs: the workbook, its styles and shared
 * strings, then the sheets. exceljs reads a zip front to back and parks a sheet that comes before the
 * shared strings in a temporary file, and on that path (common: SheetJS and others write the sheets
 * first) it loses the entries after it and fails at random. A workbook without shared strings gets an
 * empty part for the same reason. Other parts are left out. Each entry is replayed as its checked
 * data behind a plain local header stating its sizes, whatever the writer put there: exceljs's
 * unzipper reads neither zip64 sizes nor 64-bit data descriptors, and never has to search for a
 * descriptor's signature (which the compressed data may contain by chance). A bare end record closes
 * the stream.
 */
function partsInReadingOrder(zip: CheckedZip): Readable {
  const byName = new Map(zip.records.map((record) => [record.name, record]));
  const sheets = zip.records.filter((record) => SHEET_PART.test(record.name));
  async function* bytes(): AsyncGenerator<Buffer> {
    for (const name of WORKBOOK_PARTS) {
      const record = byName.get(name);
      if (record !== undefined) yield* entry(record);
      else if (name === "xl/sharedStrings.xml") yield* storedEntry(name, Buffer.from("<sst/>"));
    }
    for (const sheet of sheets) yield* entry(sheet);
    yield END_OF_CENTRAL_DIRECTORY;
  }
  async function* entry(record: ZipRecord): AsyncGenerator<Buffer> {
    yield localHeader(record.name, record);
    if (record.dataEnd > record.dataStart)
      yield* createReadStream(zip.path, { start: record.dataStart, end: record.dataEnd - 1 }) as AsyncIterable<Buffer>;
  }
  return Readable.from(bytes(), { objectMode: false });
}

function* storedEntry(name: string, data: Buffer): Generator<Buffer> {
  yield localHeader(name, {
    compressionMethod: 0,
    crc32: crc32(data),
    compressedSize: data.length,
    uncompressedSize: data.length,
  });
  yield data;
}

/** A local file header stating everything up front: no data descriptor, 32-bit sizes (the zip bounds keep entries far below 4 GiB). */
function localHeader(
  name: string,
  entry: Pick<ZipRecord, "compressionMethod" | "crc32" | "compressedSize" | "uncompressedSize">,
): Buffer {
  const fileName = Buffer.from(name);
  const header = Buffer.alloc(30);
  header.writeUInt32LE(0x04034b50, 0);
  header.writeUInt16LE(20, 4);
  header.writeUInt16LE(0x0800, 6); // the name is UTF-8
  header.writeUInt16LE(entry.compressionMethod, 8);
  header.writeUInt32LE(entry.crc32, 14);
  header.writeUInt32LE(entry.compressedSize, 18);
  header.writeUInt32LE(entry.uncompressedSize, 22);
  header.writeUInt16LE(fileName.length, 26);
  return Buffer.concat([header, fileName]);
}

/** An empty end-of-central-directory record: where exceljs's unzipper stops. */
const END_OF_CENTRAL_DIRECTORY = ((): Buffer => {
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  return end;
})();

type WorkbookReader = InstanceType<typeof ExcelJS.stream.xlsx.WorkbookReader>;
type WorksheetReader = ExcelJS.stream.xlsx.WorksheetReader;

/**
 * exceljs emits sheets in the zip's order and names each from the workbook part (`xl/workbook.xml`),
 * which also gives the sheets' order as Excel shows them.
 */
function isWanted(workbook: WorkbookReader, worksheet: WorksheetReader, wanted: string | number | undefined): boolean {
  const sheets = (workbook as unknown as { model?: { sheets?: { name: string }[] } }).model?.sheets ?? [];
  const name = (worksheet as unknown as { name?: string }).name;
  const position = sheets.findIndex((sheet) => sheet.name === name);
  if (position === -1) throw new FileFormatError(`The workbook does not list its sheet ${name ?? ""}`);
  if (wanted === undefined) return position === 0;
  if (typeof wanted === "number") return position === wanted - 1;
  return name === wanted;
}

async function drain(worksheet: WorksheetReader): Promise<void> {
  for await (const _row of worksheet) {
    // exceljs parses a sheet only as it is iterated; an unread one must still be consumed.
  }
}

function headerNames(excelRow: ExcelJS.Row): Map<number, string> {
  const header = new Map<number, string>();
  const seen = new Set<string>();
  excelRow.eachCell((cell, column) => {
    const name = String(plain(cell.value) ?? "").trim();
    if (name === "") return;
    if (seen.has(name)) throw new FileFormatError(`The header names the column "${name}" twice`);
    seen.add(name);
    header.set(column, name);
  });
  if (header.size === 0) throw new FileFormatError(`The header row ${excelRow.number} is empty`);
  return header;
}

function rowValues(header: Map<number, string>, excelRow: ExcelJS.Row, row: number): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  excelRow.eachCell((cell, column) => {
    let value: ReturnType<typeof plain>;
    try {
      value = plain(cell.value);
    } catch (error) {
      throw error instanceof FileFormatError ? new FileFormatError(`${error.message} (${cell.address})`, row) : error;
    }
    if (value === undefined || value === "") return;
    const name = header.get(column);
    if (name === undefined) throw new FileFormatError(`Column ${cell.address} has a value but no header`, row);
    values[name] = value;
  });
  return values;
}

/** A cell's value as JSON-ready data: what a mapping reads. */
function plain(value: ExcelJS.CellValue): string | number | boolean | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") return value;
  if (value instanceof Date) return isoDate(value);
  if ("error" in value) throw new FileFormatError(`A cell holds the error ${value.error}`);
  if ("richText" in value) return value.richText.map((run) => run.text).join("");
  if ("result" in value) return value.result === undefined ? undefined : plain(value.result);
  if ("sharedFormula" in value || "formula" in value) return undefined;
  if ("text" in value) return plain(value.text);
  return undefined;
}

/** exceljs builds dates in UTC from the serial number, so the UTC fields are the sheet's own. */
function isoDate(date: Date): string {
  const iso = date.toISOString();
  return iso.endsWith("T00:00:00.000Z") ? iso.slice(0, 10) : iso.replace(/\.000Z$/, "Z");
}
