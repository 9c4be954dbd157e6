import type { Readable } from "node:stream";
import { FIX_ADMIN_MSG_TYPES, FIX_GROUPS } from "../domain/fix-groups";
import { MAX_FIX_MESSAGE_BYTES, nextMessage, type Field } from "./fix-reader-message";

/**
 * Repeating-group entries a message may hold, all its groups and nested groups together. Each entry
 * is an object keyed by tag numbers, which V8 stores as array indexes: a few kilobytes each, so
 * 150,000 one-field entries (under a megabyte of text) would fill the heap. Position reports carry a
 * handful of positions and parties.
 */
export const MAX_FIX_GROUP_ENTRIES = 1000;
import { FileFormatError, type SourceRecord } from "../domain/source-record";
import type { RecordReader } from "./record-reader";

/** What a feed says about its FIX files (validated by the feed schema before it gets here). */
export interface FixOptions {
  /** The `35=` values that are records; absent or empty: every message but the session-level ones. */
  msgTypes?: string[];
}

/**
 * Reads FIX tag=value messages, separated by SOH or `|`, one a line or run together. A message
 * starts at `8=FIX` (text before it on its line, such as a log timestamp, is ignored) and ends after
 * its `10=` checksum, or at the line's end when it has none. The checksum and BodyLength (9) are
 * verified when present. Only the selected message types are records, numbered from 1; `values`
 * holds each tag's value as a string, and a repeating group as an array of entries under its NoXxx
 * tag (`values["702"] = [{ "703": "TQ", "704": "100" }]`).
 */
export const readFix: RecordReader<FixOptions> = (input, options) => fixRecords(input, options);

async function* fixRecords(input: Readable, options: FixOptions): AsyncGenerator<SourceRecord> {
  const wanted = options.msgTypes !== undefined && options.msgTypes.length > 0 ? new Set(options.msgTypes) : undefined;
  const selected = (type: string) => (wanted === undefined ? !FIX_ADMIN_MSG_TYPES.has(type) : wanted.has(type));
  let buffer: Buffer = Buffer.alloc(0);
  let count = 0;
  let row = 0;

  const take = function* (final: boolean): Generator<SourceRecord> {
    let position = 0;
    for (;;) {
      const message = nextMessage(buffer, position, final, count + 1);
      if (message === undefined) break;
      count += 1;
      position = message.end;
      const type = message.fields.find((field) => field.tag === "35")?.value;
      if (type === undefined) throw new FileFormatError(`message ${count} has no MsgType (35)`);
      if (!selected(type)) continue;
      row += 1;
      yield { row, values: structured(message.fields, count, row) };
    }
    buffer = buffer.subarray(position);
  };

  for await (const chunk of input as AsyncIterable<Buffer | string>) {
    const bytes = typeof chunk === "string" ? Buffer.from(chunk, "latin1") : chunk;
    buffer = buffer.length === 0 ? bytes : Buffer.concat([buffer, bytes]);
    yield* take(false);
    if (buffer.length > MAX_FIX_MESSAGE_BYTES) {
      throw new FileFormatError(`message ${count + 1} is longer than ${MAX_FIX_MESSAGE_BYTES} bytes or not FIX`);
    }
  }
  yield* take(true);
}

/** Flat tags as they come, repeating groups (by the table) as arrays of entries under their count tag. */
function structured(fields: Field[], number: number, row: number): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  fill(values, fields, 0, undefined, { number, row, entries: 0 });
  return values;
}

/** The message being structured: its number and row, for errors, and the group entries made so far. */
interface Budget {
  number: number;
  row: number;
  entries: number;
}

function fill(
  target: Record<string, unknown>,
  fields: Field[],
  from: number,
  members: readonly string[] | undefined,
  budget: Budget,
): number {
  const { number, row } = budget;
  let index = from;
  while (index < fields.length) {
    const field = fields[index] as Field;
    if (members !== undefined && (!members.includes(field.tag) || (field.tag === members[0] && index > from))) {
      return index; // the entry ends: a tag outside the group, or the next entry's first tag
    }
    if (Object.hasOwn(target, field.tag)) {
      throw new FileFormatError(
        `message ${number}: tag ${field.tag} repeats outside a repeating group this reader knows`,
        row,
      );
    }
    const group = FIX_GROUPS[field.tag];
    index += 1;
    if (group === undefined) {
      target[field.tag] = field.value;
      continue;
    }
    const declared = Number(field.value);
    const tooMany = (what: string) =>
      new FileFormatError(
        `message ${number}: group ${field.tag} ${what}; a message may hold at most ${MAX_FIX_GROUP_ENTRIES} group entries in all`,
        row,
      );
    if (declared > MAX_FIX_GROUP_ENTRIES - budget.entries) throw tooMany(`declares ${field.value} entries`);
    const entries: Record<string, unknown>[] = [];
    while (index < fields.length && fields[index]?.tag === group[0]) {
      // A count that understates its entries must not let them through either.
      if (++budget.entries > MAX_FIX_GROUP_ENTRIES) throw tooMany(`has more entries than ${MAX_FIX_GROUP_ENTRIES}`);
      const entry: Record<string, unknown> = {};
      index = fill(entry, fields, index, group, budget);
      entries.push(entry);
    }
    if (!Number.isInteger(declared) || declared !== entries.length) {
      throw new FileFormatError(
        `message ${number}: group ${field.tag} declares ${field.value} entries, ${entries.length} found (each starts with tag ${group[0]})`,
        row,
      );
    }
    target[field.tag] = entries;
  }
  return index;
}
