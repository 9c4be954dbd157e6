import type { Readable } from "node:stream";
import type { FeedDefinition } from "../domain/feed";
import type { SourceRecord } from "../domain/source-record";

/**
 * The readers of providers' files (CSV, XLSX, XML, JSON, FIX): the records of one file, read with the
 * reader of the feed's format and the feed's options, in bounded memory. Throws FileFormatError for a
 * file its reader cannot read.
 */
export interface FileReaders {
  /** `onHeader`: told a csv or xlsx file's column names once, before its first record. */
  records(
    feed: Pick<FeedDefinition, "format" | "options">,
    file: Readable,
    onHeader?: (columns: readonly string[]) => void,
  ): AsyncIterable<SourceRecord>;
}
