/**
 * CSV export: a header row of the column names, then one line per record; UTF-8, `,`, RFC 4180
 * quoting and CRLF line ends (csv-stringify). `escape_formulas` prefixes a `'` to any text cell
 * starting with `=`, `+`, `-`, `@`, tab or CR (and their full-width forms), so a spreadsheet opening
 * the file never runs a formula from the data; numbers, negative ones too, stay as they are.
 */
import { Readable } from "node:stream";
import { stringify, type Options } from "csv-stringify/sync";
import type { DataSet, ExportFile } from "../../ports/exports";
import { cellReader, flatCell } from "./cells";

/** Records stringified at once: chunks of about 256 KB, few enough writes for an SFTP upload, small enough to stay bounded. */
const BATCH = 1024;

export function writeCsv(dataSet: DataSet): ExportFile {
  let rows = 0;
  const read = cellReader(dataSet.columns);
  const options: Options = {
    escape_formulas: true,
    record_delimiter: "\r\n",
    cast: { boolean: (v) => String(v) },
  };
  async function* lines(): AsyncGenerator<string> {
    yield stringify([[...dataSet.columns]], options);
    let batch: unknown[][] = [];
    for await (const record of dataSet.records) {
      batch.push(read(record).map(flatCell));
      if (batch.length === BATCH) {
        yield stringify(batch, options);
        rows += batch.length;
        batch = [];
      }
    }
    if (batch.length > 0) {
      yield stringify(batch, options);
      rows += batch.length;
    }
  }
  return { stream: Readable.from(lines(), { objectMode: false }), rows: () => rows };
}
