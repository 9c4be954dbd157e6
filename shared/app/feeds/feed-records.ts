import type { Readable } from "node:stream";
import type { FeedDefinition } from "../../domain/feed";
import { compileMapping } from "../../domain/feed-mapping";
import { RowValidation, type ValidationOutcome } from "../../domain/feed-validation";
import type { FileReaders } from "../../ports/file-readers";

/**
 * Pass 1 of a feed's file: every record read, mapped and validated as the feed says (its
 * `onRowError` and `maxRejectedRows` included), nothing written. A delivered file's ingestion starts
 * with it and a dry run is exactly it, so both give the same counts and the same verdict. Throws
 * FileFormatError for a file the reader cannot read.
 */
export async function firstPass(
  readers: FileReaders,
  feed: Pick<FeedDefinition, "dataType" | "format" | "options" | "mapping" | "validation">,
  file: Readable,
): Promise<ValidationOutcome> {
  const validation = new RowValidation(feed.validation);
  const map = compileMapping(feed);
  // Read to the end even once the file is rejected: its counts are the whole file's.
  const records = readers.records(feed, file, (columns) => validation.header(map.header(columns)));
  for await (const record of records) validation.accept(map(record));
  return validation.outcome();
}
