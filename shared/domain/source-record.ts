/**
 * One record read from a provider's file, before mapping. `values` is keyed by what a feed's mapping
 * names as `source`: the column header (csv, xlsx), the record's own structure (xml, json: nested
 * objects and arrays, XML attributes under `@name`), or the tag number (fix: `"55"`, repeating groups
 * as arrays of such objects).
 */
export interface SourceRecord {
  /** 1-based number of the data record in the file (a header row not counted). */
  row: number;
  values: Record<string, unknown>;
}

/** A file that cannot be read as its format says, with where, when known; the file is quarantined. */
export class FileFormatError extends Error {
  override readonly name = "FileFormatError";
  constructor(
    message: string,
    readonly row?: number,
  ) {
    super(message);
  }
}
