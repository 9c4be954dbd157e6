/**
 * XLSX export with exceljs's streaming WorkbookWriter: one worksheet named after the data type, a
 * frozen header row of the column names, then one row per record. Numbers are number cells, ISO
 * dates and timestamps real Excel dates (formatted `yyyy-mm-dd` and `yyyy-mm-dd hh:mm:ss`, UTC),
 * arrays and objects JSON text, null an empty cell. Rows are generated only as fast as the zip
 * stream takes them, so memory stays bounded however slowly the file is consumed.
 */
import { PassThrough, type Writable } from "node:stream";
import type ExcelJS from "exceljs";
import type { DataSet, ExportFile, ExportHeader } from "../../ports/exports";
import type { ColumnType } from "../../domain/export-data";
import { cellReader, flatCell } from "./cells";
import { loadExcelJs } from "../exceljs";

/** Excel's last row is 1,048,576; one is the header. */
export const MAX_XLSX_ROWS = 1_048_575;
const DATE_FORMAT = "yyyy-mm-dd";
const TIMESTAMP_FORMAT = "yyyy-mm-dd hh:mm:ss";
/** Rows written between checks of the zip stream's backlog. */
const CHECK_EVERY = 64;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;
// XML 1.0 cannot hold these; a cell keeping one would make the whole file unreadable.
const XML_ILLEGAL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g;

type XlsxValue = string | number | boolean | Date | null;

function dateOf(value: string, kind: "date" | "timestamp"): Date | undefined {
  if (kind === "date" ? !ISO_DATE.test(value) : !ISO_TIMESTAMP.test(value)) return undefined;
  const date = new Date(kind === "date" ? `${value}T00:00:00Z` : value);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/** A value as its cell, and the number format a date cell needs. */
function cellOf(raw: unknown, type: ColumnType | undefined): { value: XlsxValue; numFmt?: string } {
  if (typeof raw === "string" && (type === "date" || type === "timestamp" || type === undefined)) {
    const kind = type ?? (ISO_DATE.test(raw) ? "date" : ISO_TIMESTAMP.test(raw) ? "timestamp" : undefined);
    const date = kind === undefined ? undefined : dateOf(raw, kind);
    if (date !== undefined) return { value: date, numFmt: kind === "date" ? DATE_FORMAT : TIMESTAMP_FORMAT };
  }
  const cell = flatCell(raw);
  return { value: typeof cell === "string" ? cell.replace(XML_ILLEGAL, "") : cell };
}

/**
 * The stream exceljs writes the sheet's XML into (archiver's input, a `readable-stream` PassThrough),
 * when it can be reached: exceljs ignores its backpressure, so the writer watches it itself.
 */
function sheetBacklog(worksheet: ExcelJS.Worksheet): Writable | undefined {
  const pipes = (worksheet as unknown as { stream?: { pipes?: unknown } }).stream?.pipes;
  const first: unknown = Array.isArray(pipes) ? pipes[0] : undefined;
  return first !== null && typeof first === "object" && "_writableState" in first
    ? (first as unknown as Writable)
    : undefined;
}

const needsDrain = (stream: Writable): boolean =>
  (stream as unknown as { _writableState?: { needDrain?: boolean } })._writableState?.needDrain === true;

function drained(stream: Writable, out: PassThrough): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      stream.off("drain", done);
      stream.off("close", done);
      out.off("close", done);
      resolve();
    };
    stream.once("drain", done);
    stream.once("close", done);
    out.once("close", done);
  });
}

export function writeXlsx(header: ExportHeader, dataSet: DataSet): ExportFile {
  let rows = 0;
  const out = new PassThrough();
  const read = cellReader(dataSet.columns);
  const types = dataSet.columns.map((c) => dataSet.columnTypes?.[c]);

  async function produce(): Promise<void> {
    const { stream } = await loadExcelJs();
    const workbook = new stream.xlsx.WorkbookWriter({ stream: out, useStyles: true, useSharedStrings: false });
    const worksheet = workbook.addWorksheet(header.dataType, { views: [{ state: "frozen", ySplit: 1 }] });
    worksheet.columns = dataSet.columns.map((column) => ({
      header: column,
      key: column,
      width: Math.min(Math.max(column.length + 2, 12), 40),
    }));
    worksheet.getRow(1).font = { bold: true };
    worksheet.getRow(1).commit();
    for await (const record of dataSet.records) {
      if (out.destroyed) return;
      if (rows === MAX_XLSX_ROWS)
        throw new Error(
          `an XLSX sheet holds at most ${MAX_XLSX_ROWS} rows; export this data set as CSV or JSON, or filter it`,
        );
      const cells = read(record).map((raw, i) => cellOf(raw, types[i]));
      const row = worksheet.addRow(cells.map((c) => c.value));
      cells.forEach((c, i) => {
        if (c.numFmt !== undefined) row.getCell(i + 1).numFmt = c.numFmt;
      });
      row.commit();
      rows++;
      if (rows % CHECK_EVERY === 0) {
        // A turn of the event loop lets archiver take what was written; then wait while it is behind.
        await new Promise((resolve) => setImmediate(resolve));
        const backlog = sheetBacklog(worksheet);
        if (backlog !== undefined && needsDrain(backlog)) await drained(backlog, out);
        if (out.writableNeedDrain) await drained(out, out);
      }
    }
    worksheet.commit();
    await workbook.commit();
  }

  produce().catch((error: unknown) => out.destroy(error instanceof Error ? error : new Error(String(error))));
  return { stream: out, rows: () => rows };
}
