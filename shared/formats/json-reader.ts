import type { Readable } from "node:stream";
import { JSONParser, TokenType } from "@streamparser/json";
import { FileFormatError, type SourceRecord } from "../domain/source-record";
import type { RecordReader } from "./record-reader";

/** What a feed says about its JSON files (validated by the feed schema before it gets here). */
export interface JsonOptions {
  /** Dotted path of object keys to the array of records (`data.positions`); empty or absent: the top-level array. */
  recordPath?: string;
}

/** Deeper nesting than this is refused (each level costs parser state; no real feed nests this far). */
export const MAX_JSON_DEPTH = 64;
/**
 * A record, or any single value outside the records, larger than this is refused before it fills
 * memory (a record in memory takes several times its text; the XML and FIX readers bound theirs alike).
 */
export const MAX_JSON_RECORD_BYTES = 1 << 20;
/**
 * Objects one record may nest. An object whose keys look like numbers (`{"900": 1}`) is stored by V8
 * as an array of that length, kilobytes each: a megabyte of them would take gigabytes.
 */
export const MAX_JSON_RECORD_OBJECTS = 1000;

/**
 * Reads the records of a JSON file as they stream past: each element of the array at `recordPath`
 * must be an object and becomes a record's `values` as JSON has it (numbers, booleans, nested
 * objects and arrays). Nothing else in the file is kept, so memory stays bounded by one record.
 */
export const readJson: RecordReader<JsonOptions> = (input, options) => jsonRecords(input, options);

async function* jsonRecords(input: Readable, options: JsonOptions): AsyncGenerator<SourceRecord> {
  const target = recordPathSegments(options.recordPath);
  const watch = new RecordArrayWatch(target, options.recordPath ?? "");
  const parser = new JSONParser({ paths: [["$", ...target, "*"].join(".")], keepStack: false });

  let row = 0;
  let failure: unknown;
  let pending: SourceRecord[] = [];
  parser.onToken = ({ token, value, offset }) => watch.token(token, value, offset);
  parser.onValue = ({ value }) => {
    row += 1;
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      throw new FileFormatError(`record ${row} is ${describe(value)}, not an object`, row);
    }
    pending.push({ row, values: value });
  };
  parser.onError = (error) => {
    failure ??= error;
  };

  let consumed = 0;
  for await (const chunk of input as AsyncIterable<Buffer>) {
    parser.write(chunk);
    consumed += chunk.length;
    if (failure === undefined) failure = watch.oversized(consumed, row + 1);
    if (failure !== undefined) throw asFileFormatError(failure, watch.insideRecords ? row + 1 : undefined);
    const ready = pending;
    pending = [];
    yield* ready;
  }
  if (!parser.isEnded) parser.end();
  if (failure !== undefined) throw asFileFormatError(failure, watch.insideRecords ? row + 1 : undefined);
  yield* pending;
  if (!watch.found) {
    throw new FileFormatError(
      target.length === 0 ? "the file is empty" : `recordPath "${options.recordPath}" is not in the file`,
    );
  }
}

function recordPathSegments(recordPath: string | undefined): string[] {
  if (recordPath === undefined || recordPath.trim() === "") return [];
  const segments = recordPath.split(".");
  if (segments.some((segment) => segment === "" || segment === "*")) {
    throw new FileFormatError(`recordPath "${recordPath}" is not a dotted path of keys`);
  }
  return segments;
}

interface Frame {
  array: boolean;
  key: string | undefined;
  expectsKey: boolean;
}

/**
 * Follows where the parser is (which keys lead to the current value) from its tokens, to tell
 * whether the record path exists and holds an array — the parser itself only reports the
 * elements it finds, and a missing path, an object or a scalar there would yield nothing silently.
 */
class RecordArrayWatch {
  private readonly frames: Frame[] = [];
  private recordsDepth = -1;
  private lastTokenOffset = 0;
  private recordStart: number | undefined;
  private recordObjects = 0;
  private records = 0;
  found = false;

  constructor(
    private readonly target: string[],
    private readonly recordPath: string,
  ) {}

  get insideRecords(): boolean {
    return this.recordsDepth >= 0;
  }

  token(token: TokenType, value: unknown, offset: number): void {
    this.lastTokenOffset = offset;
    const top = this.frames[this.frames.length - 1];
    if (top !== undefined && top.expectsKey) {
      if (token === TokenType.STRING) {
        top.key = String(value);
        top.expectsKey = false;
        return;
      }
    }
    switch (token) {
      case TokenType.COMMA:
        if (top !== undefined && !top.array) top.expectsKey = true;
        return;
      case TokenType.COLON:
      case TokenType.SEPARATOR:
        return;
      case TokenType.RIGHT_BRACE:
      case TokenType.RIGHT_BRACKET:
        this.frames.pop();
        if (this.recordsDepth >= 0) {
          // The records' array closed, or one record in it did.
          if (this.frames.length === this.recordsDepth) this.recordsDepth = -1;
          else if (this.frames.length === this.recordsDepth + 1) this.recordStart = undefined;
        }
        return;
      default:
        this.valueStarts(token, offset);
    }
  }

  /** A value longer than the bound has been read without finishing (one record, or one token). */
  oversized(consumed: number, row: number): FileFormatError | undefined {
    if (this.recordStart !== undefined && consumed - this.recordStart > MAX_JSON_RECORD_BYTES) {
      return new FileFormatError(`record ${row} is larger than ${MAX_JSON_RECORD_BYTES} bytes`, row);
    }
    if (consumed - this.lastTokenOffset > MAX_JSON_RECORD_BYTES) {
      return new FileFormatError(
        `a value near byte ${this.lastTokenOffset} is larger than ${MAX_JSON_RECORD_BYTES} bytes`,
      );
    }
    return undefined;
  }

  private valueStarts(token: TokenType, offset: number): void {
    const depth = this.frames.length;
    if (this.recordsDepth >= 0 && depth === this.recordsDepth + 1) {
      this.recordStart = offset;
      this.recordObjects = 0;
      this.records += 1;
    }
    // Counted here, before the parser builds the object: the token reaches this watch first.
    if (
      token === TokenType.LEFT_BRACE &&
      this.recordsDepth >= 0 &&
      depth > this.recordsDepth &&
      ++this.recordObjects > MAX_JSON_RECORD_OBJECTS
    ) {
      throw new FileFormatError(
        `record ${this.records} holds more than ${MAX_JSON_RECORD_OBJECTS} objects`,
        this.records,
      );
    }
    if (depth === this.target.length && this.atTarget()) {
      if (token !== TokenType.LEFT_BRACKET) {
        const what = token === TokenType.LEFT_BRACE ? "an object" : "a single value";
        const where = this.target.length === 0 ? "the file's top level" : `recordPath "${this.recordPath}"`;
        throw new FileFormatError(`${where} is ${what}, not an array of records`);
      }
      this.found = true;
      this.recordsDepth = depth;
    }
    if (token === TokenType.LEFT_BRACE || token === TokenType.LEFT_BRACKET) {
      if (depth >= MAX_JSON_DEPTH) throw new FileFormatError(`the file nests deeper than ${MAX_JSON_DEPTH} levels`);
      this.frames.push({
        array: token === TokenType.LEFT_BRACKET,
        key: undefined,
        expectsKey: token === TokenType.LEFT_BRACE,
      });
    }
  }

  private atTarget(): boolean {
    for (let index = 0; index < this.target.length; index += 1) {
      const frame = this.frames[index];
      if (frame === undefined || frame.array || frame.key !== this.target[index]) return false;
    }
    return true;
  }
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return `a ${typeof value}`;
}

function asFileFormatError(error: unknown, row: number | undefined): FileFormatError {
  if (error instanceof FileFormatError) return error;
  const reason = error instanceof Error ? error.message : String(error);
  const where = row === undefined ? "" : ` (record ${row})`;
  return new FileFormatError(`the file is not valid JSON${where}: ${reason}`, row);
}
