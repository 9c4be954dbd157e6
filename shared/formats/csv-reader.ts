import { pipeline, type Readable } from "node:stream";
import { CsvError, parse } from "csv-parse";
import iconv from "iconv-lite";
import { FileFormatError, type SourceRecord } from "../domain/source-record";
import type { RecordReader } from "./record-reader";

export type CsvDelimiter = "," | "|" | ";" | "\t";
export type TextEncoding = "utf-8" | "windows-1252" | "iso-8859-1";

/** What a feed says about its CSV files (validated by the feed schema before it gets here). */
export interface CsvOptions {
  /** Default `,`. */
  delimiter?: CsvDelimiter;
  /** 1-based line of the header; the lines above it are skipped. Default 1. */
  headerRow?: number;
  /** Default `utf-8`. A leading UTF-8 BOM is skipped whatever the encoding. */
  encoding?: TextEncoding;
  /** Told the header's column names once, before the first record (also for a file of no data rows). */
  onHeader?: (columns: readonly string[]) => void;
}

/**
 * A record (all its fields together) longer than this is refused: an unterminated quote would
 * otherwise swallow the rest of the file into one field, in memory.
 */
export const MAX_CSV_RECORD_CHARS = 1 << 20;
/** A header naming more columns than a spreadsheet can hold is refused: every row becomes an object of that many values. */
export const MAX_CSV_COLUMNS = 16_384;

/**
 * Reads a delimited text file: RFC 4180 quoting (delimiters, line breaks and doubled quotes inside
 * quoted fields), one header row naming the columns, values as strings. Empty lines and rows whose
 * fields are all empty are skipped and not counted (at `headerRow` too: the header is the first
 * non-empty line from there). A trailing delimiter on every line (a nameless
 * last column) is tolerated as long as that column stays empty.
 */
export const readCsv: RecordReader<CsvOptions> = (input, options) => csvRecords(input, options);

async function* csvRecords(input: Readable, options: CsvOptions): AsyncGenerator<SourceRecord> {
  const parser = parse({
    delimiter: options.delimiter ?? ",",
    from_line: options.headerRow ?? 1,
    skip_empty_lines: true,
    skip_records_with_empty_values: true,
    // Ragged rows are refused below, with the row's number; csv-parse would compare with the first line.
    relax_column_count: true,
    max_record_size: MAX_CSV_RECORD_CHARS,
  });
  pipeline(input, decode(options.encoding ?? "utf-8"), parser, () => {
    // Failures surface through the parser's iterator below (pipeline destroys it with the error).
  });

  let header: (string | undefined)[] | undefined;
  let row = 0;
  try {
    for await (const fields of parser as AsyncIterable<string[]>) {
      if (header === undefined) {
        header = headerNames(fields);
        options.onHeader?.(header.filter((name): name is string => name !== undefined));
        continue;
      }
      row += 1;
      yield { row, values: rowValues(header, fields, row) };
    }
  } catch (error) {
    throw asFileFormatError(error);
  } finally {
    parser.destroy();
  }
  if (header === undefined) throw new FileFormatError("the file has no header row");
}

/** The column names; `undefined` for trailing nameless columns (a delimiter closing every line). */
function headerNames(fields: string[]): (string | undefined)[] {
  if (fields.length > MAX_CSV_COLUMNS)
    throw new FileFormatError(`the header has ${fields.length} columns, more than ${MAX_CSV_COLUMNS}`);
  const names: (string | undefined)[] = fields.map((field) => field.trim());
  while (names.length > 0 && names[names.length - 1] === "") names.pop();
  const seen = new Set<string>();
  for (const [index, name] of names.entries()) {
    if (name === "" || name === undefined) throw new FileFormatError(`the header's column ${index + 1} has no name`);
    if (seen.has(name)) throw new FileFormatError(`the header names column "${name}" twice`);
    seen.add(name);
  }
  names.length = fields.length;
  return names;
}

function rowValues(header: (string | undefined)[], fields: string[], row: number): Record<string, unknown> {
  if (fields.length !== header.length) {
    throw new FileFormatError(`row ${row} has ${fields.length} fields, the header ${header.length}`, row);
  }
  const values: Record<string, unknown> = {};
  for (let index = 0; index < fields.length; index += 1) {
    const name = header[index];
    const field = fields[index] as string;
    if (name === undefined) {
      if (field !== "")
        throw new FileFormatError(`row ${row} has a value in column ${index + 1}, which has no header`, row);
      continue;
    }
    // A column named "__proto__" must stay a plain value: defineProperty, not assignment (which is
    // the cheaper way for every other name).
    if (name === "__proto__")
      Object.defineProperty(values, name, { value: field, enumerable: true, writable: true, configurable: true });
    else values[name] = field;
  }
  return values;
}

function asFileFormatError(error: unknown): unknown {
  if (!(error instanceof CsvError)) return error;
  // csv-parse counts the records it finished (the header first); the failing one is the next.
  // Taken from the error, not from what was consumed: the error overtakes records still buffered.
  const row = typeof error["records"] === "number" && error["records"] > 0 ? error["records"] : undefined;
  const where = row === undefined ? "the header row" : `row ${row}`;
  switch (error.code) {
    case "CSV_QUOTE_NOT_CLOSED":
      return new FileFormatError(`${where}: a quoted field is not closed before the end of the file`, row);
    case "CSV_MAX_RECORD_SIZE":
      return new FileFormatError(
        `${where} is longer than ${MAX_CSV_RECORD_CHARS} characters (an unterminated quote?)`,
        row,
      );
    case "CSV_INVALID_CLOSING_QUOTE":
      return new FileFormatError(`${where}: a quoted field has text after its closing quote`, row);
    default:
      return new FileFormatError(`${where}: ${error.message}`, row);
  }
}

/**
 * Bytes to text in the file's encoding, a leading UTF-8 BOM dropped. UTF-8 is decoded strictly: a
 * file that is not valid UTF-8 (usually windows-1252 sent without saying so) is refused rather than
 * read with replacement characters.
 */
function decode(encoding: TextEncoding) {
  return async function* (source: AsyncIterable<Buffer | string>): AsyncGenerator<string> {
    const utf8 = encoding === "utf-8" ? new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }) : undefined;
    const other = utf8 === undefined ? iconv.getDecoder(encoding, { stripBOM: false }) : undefined;
    let head: Buffer | undefined = Buffer.alloc(0);
    let offset = 0;
    const text = (bytes: Buffer, final: boolean): string => {
      try {
        if (utf8 !== undefined) return utf8.decode(bytes, { stream: !final });
        return (other?.write(bytes) ?? "") + (final ? (other?.end() ?? "") : "");
      } catch {
        throw new FileFormatError(
          `the file is not valid ${encoding} (near byte ${offset}); is its encoding set right?`,
        );
      } finally {
        offset += bytes.length;
      }
    };
    for await (const chunk of source) {
      let bytes = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
      if (head !== undefined) {
        // The BOM can straddle chunks; hold the first bytes until there are three.
        head = Buffer.concat([head, bytes]);
        if (head.length < BOM.length) continue;
        bytes = head.subarray(0, BOM.length).equals(BOM) ? head.subarray(BOM.length) : head;
        head = undefined;
      }
      const decoded = text(bytes, false);
      if (decoded !== "") yield decoded;
    }
    const rest = text(head !== undefined && !BOM.subarray(0, head.length).equals(head) ? head : Buffer.alloc(0), true);
    if (rest !== "") yield rest;
  };
}

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
