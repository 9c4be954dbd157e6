import type { Readable } from "node:stream";
import type { FeedDefinition } from "../domain/feed";
import type { SourceRecord } from "../domain/source-record";

/**
 * The readers of providers' files (CSV, XLSX, XML, JSON, FIX): the records of one file, read with the
 * reader of the feed's format and the feed's options, in bounded memory. Throws FileFormatError for a
 * file its reader cannot read.
 */
export interface FileReaders {
  records(feed: Pick<FeedDefinition, "format" | "options">, file: Readable): AsyncIterable<SourceRecord>;
}
