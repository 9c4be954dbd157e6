import type { Readable } from "node:stream";
import type { SourceRecord } from "../domain/source-record";

/** Streams the records of one file in bounded memory; throws FileFormatError for a file it cannot read. */
export type RecordReader<Options> = (input: Readable, options: Options) => AsyncIterable<SourceRecord>;
