// Finding and checking FIX messages in a byte buffer: where one starts and ends, its fields, its checksum and BodyLength.
import { FIX_DATA_FIELDS } from "../domain/fix-groups";
import { FileFormatError } from "../domain/source-record";

/** A message longer than this (or this much text without one) is refused rather than buffered. */
export const MAX_FIX_MESSAGE_BYTES = 1 << 20;
/**
 * A message with more fields than this is refused: every field is an object in memory, and a
 * megabyte of `703=1` is 150,000 of them. Real messages have tens to a few hundred.
 */
export const MAX_FIX_FIELDS = 10_000;

const SOH = 0x01;
const PIPE = 0x7c;
const LF = 0x0a;
const CR = 0x0d;
const EQUALS = 0x3d;
const BEGIN = Buffer.from("8=FIX");

/** One tag=value pair of a message, in order. */
export interface Field {
  tag: string;
  value: string;
}

/** A whole message: its fields and where the next one may begin. */
export interface Message {
  end: number;
  fields: Field[];
}

/** The next whole message from `start`, or undefined when more bytes are needed (or none are left). */
export function nextMessage(buffer: Buffer, start: number, final: boolean, number: number): Message | undefined {
  const begin = findBegin(buffer, start);
  checkGap(buffer, start, begin ?? buffer.length, final && begin === undefined, number);
  if (begin === undefined) return undefined;

  const fields: Field[] = [];
  let separator: number | undefined;
  let dataTag: string | undefined;
  let dataLength = 0;
  let trailerStart: number | undefined;
  let bodyStart: number | undefined;
  let lastValueEnd = begin;
  let position = begin;
  const incomplete = () => {
    if (final) throw new FileFormatError(`message ${number} is cut off at the end of the file`);
    return undefined;
  };
  for (;;) {
    if (position >= buffer.length) {
      if (!final || fields.length === 0) return incomplete();
      break;
    }
    const first = buffer[position];
    if (first === LF || first === CR) break;
    const equals = buffer.indexOf(EQUALS, position);
    if (equals < 0) return incomplete();
    const tag = buffer.toString("latin1", position, equals);
    if (!/^[1-9][0-9]{0,5}$/.test(tag))
      throw new FileFormatError(`message ${number} has a malformed field "${tag.slice(0, 20)}"`);
    if (tag === "8" && fields.length > 0) break; // the next message began: this one had no checksum
    const valueStart = equals + 1;
    let valueEnd: number;
    if (tag === dataTag) {
      valueEnd = valueStart + dataLength;
      if (valueEnd >= buffer.length && !final) return incomplete();
      if (valueEnd > buffer.length) return incomplete();
    } else {
      separator ??= findSeparator(buffer, valueStart);
      valueEnd = findValueEnd(buffer, valueStart, separator);
      if (valueEnd === buffer.length && !final) return incomplete();
    }
    if (tag === "10") trailerStart = position;
    // Checked as the message is read, not after: a file handed over in one piece is read in one go.
    if (valueEnd - begin > MAX_FIX_MESSAGE_BYTES)
      throw new FileFormatError(`message ${number} is longer than ${MAX_FIX_MESSAGE_BYTES} bytes`);
    if (fields.length >= MAX_FIX_FIELDS)
      throw new FileFormatError(`message ${number} has more than ${MAX_FIX_FIELDS} fields`);
    fields.push({ tag, value: buffer.toString("utf8", valueStart, valueEnd) });
    lastValueEnd = valueEnd;
    dataTag = FIX_DATA_FIELDS[tag];
    dataLength = dataTag === undefined ? 0 : Number(fields[fields.length - 1]?.value);
    if (!Number.isSafeInteger(dataLength) || dataLength < 0) {
      throw new FileFormatError(`message ${number}: tag ${tag} is not a length`);
    }
    position = buffer[valueEnd] === separator ? valueEnd + 1 : valueEnd;
    if (tag === "9" && fields.length === 2) bodyStart = position;
    if (tag === "10") break;
  }
  // Without a checksum the body ends as if a separator closed its last field.
  const body = bodyStart === undefined ? undefined : { start: bodyStart, end: trailerStart ?? lastValueEnd + 1 };
  verify(buffer, begin, fields, separator ?? SOH, trailerStart, body, number);
  return { end: position, fields };
}

function findBegin(buffer: Buffer, from: number): number | undefined {
  for (let index = buffer.indexOf(BEGIN, from); index >= 0; index = buffer.indexOf(BEGIN, index + 1)) {
    const before = buffer[index - 1];
    if (index === 0 || before === undefined || before < 0x30 || before > 0x39) return index; // not inside e.g. "18=FIX"
  }
  return undefined;
}

/** Between messages only blank lines, or text before a message on its own line (a log prefix). */
function checkGap(buffer: Buffer, from: number, to: number, atEnd: boolean, number: number): void {
  if (from === to) return;
  const lines = buffer.toString("latin1", from, to).split("\n");
  if (atEnd) lines.push(""); // the file's last line is no prefix: nothing follows it
  for (const line of lines.slice(0, -1)) {
    if (line.trim() !== "")
      throw new FileFormatError(`before message ${number}: "${line.trim().slice(0, 40)}" is not a FIX message`);
  }
}

function findSeparator(buffer: Buffer, from: number): number {
  for (let index = from; index < buffer.length; index += 1) {
    const byte = buffer[index];
    if (byte === SOH || byte === PIPE) return byte;
    if (byte === LF || byte === CR) break;
  }
  return SOH;
}

function findValueEnd(buffer: Buffer, from: number, separator: number): number {
  for (let index = from; index < buffer.length; index += 1) {
    const byte = buffer[index];
    if (byte === separator || byte === LF || byte === CR) return index;
  }
  return buffer.length;
}

function verify(
  buffer: Buffer,
  begin: number,
  fields: Field[],
  separator: number,
  trailerStart: number | undefined,
  body: { start: number; end: number } | undefined,
  number: number,
): void {
  const bodyLength = fields[1]?.value;
  if (body !== undefined && Number(bodyLength) !== body.end - body.start) {
    throw new FileFormatError(
      `message ${number}: BodyLength (9) is ${bodyLength}, the body is ${body.end - body.start} bytes`,
    );
  }
  if (trailerStart === undefined) return;
  const declared = fields[fields.length - 1]?.value ?? "";
  let sum = 0;
  for (let index = begin; index < trailerStart; index += 1) sum += buffer[index] ?? 0;
  // A `|` file is usually a log that replaced SOH after the checksum was computed; some tools sum the `|`s.
  const withSoh = sum - (separator === PIPE ? (PIPE - SOH) * (fields.length - 1) : 0);
  const matches = /^[0-9]{3}$/.test(declared) && [sum % 256, withSoh % 256].includes(Number(declared));
  if (!matches) {
    const seq = fields.find((field) => field.tag === "34")?.value;
    const expected = String(withSoh % 256).padStart(3, "0");
    throw new FileFormatError(
      `message ${number}${seq === undefined ? "" : ` (MsgSeqNum ${seq})`}: checksum (10) is ${declared}, the message sums to ${expected}`,
    );
  }
}
