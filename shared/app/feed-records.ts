import type { Readable } from "node:stream";
import type { FeedDefinition } from "../domain/feed";
import { compileMapping } from "../domain/feed-mapping";
import { RowValidation, type ValidationOutcome } from "../domain/feed-validation";
import { boundedChunks } from "../formats/bounded-chunks";
import { readCsv } from "../formats/csv-reader";
import { readFix } from "../formats/fix-reader";
import { readJson } from "../formats/json-reader";
import { FileFormatError, type SourceRecord } from "../domain/source-record";
import { readXlsx } from "../formats/xlsx-reader";
import { readXml } from "../formats/xml-reader";

/** The records of one file, read with the reader of the feed's format and the feed's options. */
export function feedRecords(feed: Pick<FeedDefinition, "format" | "options">, file: Readable): AsyncIterable<SourceRecord> {
  const o = feed.options;
  const input = boundedChunks(file);
  switch (feed.format) {
    case "csv":
      return readCsv(input, { ...(o.delimiter !== undefined ? { delimiter: o.delimiter } : {}), ...(o.headerRow !== undefined ? { headerRow: o.headerRow } : {}), ...(o.encoding !== undefined ? { encoding: o.encoding } : {}) });
    case "xlsx":
      return readXlsx(input, { ...(o.sheet !== undefined ? { sheet: o.sheet } : {}), ...(o.headerRow !== undefined ? { headerRow: o.headerRow } : {}) });
    case "xml":
      if (o.recordPath === undefined) throw new FileFormatError("the feed has no options.recordPath, which xml files need");
      return readXml(input, { recordPath: o.recordPath, ...(o.encoding !== undefined ? { encoding: o.encoding } : {}) });
    case "json":
      return readJson(input, o.recordPath !== undefined ? { recordPath: o.recordPath } : {});
    case "fix":
      return readFix(input, o.msgTypes !== undefined ? { msgTypes: o.msgTypes } : {});
  }
}

/**
 * Pass 1 of a feed's file: every record read, mapped and validated as the feed says (its
 * `onRowError` and `maxRejectedRows` included), nothing written. A delivered file's ingestion starts
 * with it and a dry run is exactly it, so both give the same counts and the same verdict. Throws
 * FileFormatError for a file the reader cannot read.
 */
export async function firstPass(feed: Pick<FeedDefinition, "dataType" | "format" | "options" | "mapping" | "validation">, file: Readable): Promise<ValidationOutcome> {
  const validation = new RowValidation(feed.validation);
  const map = compileMapping(feed);
  // Read to the end even once the file is rejected: its counts are the whole file's.
  for await (const record of feedRecords(feed, file)) validation.accept(map(record));
  return validation.outcome();
}
