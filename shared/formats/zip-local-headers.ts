// The local headers of a zip, checked against its central directory: where each entry's data is, and
// that the records tile the file (plain, zip64, with or without data descriptors) with nothing between.
import type { FileHandle } from "node:fs/promises";
import type yauzl from "yauzl";
import { FileFormatError } from "../domain/source-record";

/** One entry as the central directory describes it, and where its local record and data lie in the file. */
export interface ZipRecord {
  name: string;
  /** The local record (header, data and any data descriptor): bytes `start` to `end` (exclusive). */
  start: number;
  end: number;
  /** The entry's compressed bytes within it. */
  dataStart: number;
  dataEnd: number;
  compressionMethod: number;
  crc32: number;
  compressedSize: number;
  uncompressedSize: number;
}

const LOCAL_HEADER = 0x04034b50;
const CENTRAL_HEADER = 0x02014b50;
const DATA_DESCRIPTOR = 0x08074b50;
const ZIP64_EXTRA = 0x0001;
/** A 32-bit size field that says "see the zip64 extra field". */
const ZIP64_MARK = 0xffffffff;
const SIZES_IN_DESCRIPTOR = 0x08;

/**
 * Each entry's local record, in file order, checked against the central directory (yauzl's entries,
 * zip64 already resolved there): the records must start where the directory says and follow one
 * another with nothing in between, up to the directory. A local header's sizes may be the real ones,
 * 0 (sizes in a data descriptor after the data, as streaming writers do) or 0xFFFFFFFF with the real
 * ones, or zeros with a descriptor, in a zip64 extra field; a descriptor has 32-bit sizes, or 64-bit
 * ones when the local header has a zip64 extra field, with or without its signature. Whatever the
 * form, the sizes and CRC it states must be the directory's.
 */
export async function checkLocalHeaders(
  file: FileHandle,
  entries: yauzl.Entry[],
): Promise<{ records: ZipRecord[]; directoryStart: number }> {
  const records: ZipRecord[] = [];
  const ordered = [...entries].sort((a, b) => a.relativeOffsetOfLocalHeader - b.relativeOffsetOfLocalHeader);
  let expected = 0;
  for (const entry of ordered) {
    const name = entry.fileName;
    const start = entry.relativeOffsetOfLocalHeader;
    if (start !== expected) throw new FileFormatError(`The zip has unlisted data before ${name}`);
    const header = await readAt(file, start, 30);
    if (header.readUInt32LE(0) !== LOCAL_HEADER) throw new FileFormatError(`The zip entry ${name} has no local header`);
    const flags = header.readUInt16LE(6);
    const nameLength = header.readUInt16LE(26);
    const extraLength = header.readUInt16LE(28);
    const zip64 = zip64Sizes(await readAt(file, start + 30 + nameLength, extraLength), name);
    const sizes = {
      compressed: resolved(header.readUInt32LE(18), zip64?.compressed),
      uncompressed: resolved(header.readUInt32LE(22), zip64?.uncompressed),
    };
    const dataStart = start + 30 + nameLength + extraLength;
    const dataEnd = dataStart + entry.compressedSize;
    let end = dataEnd;
    if ((flags & SIZES_IN_DESCRIPTOR) !== 0) {
      // The header may state the sizes as well, or zeros; the descriptor after the data states them.
      if (!(sizes.compressed === 0 && sizes.uncompressed === 0)) checkSizes(sizes, entry);
      end = dataEnd + (await descriptorLength(file, dataEnd, entry, zip64 !== undefined));
    } else {
      checkSizes(sizes, entry);
    }
    records.push({
      name,
      start,
      end,
      dataStart,
      dataEnd,
      compressionMethod: entry.compressionMethod,
      crc32: entry.crc32,
      compressedSize: entry.compressedSize,
      uncompressedSize: entry.uncompressedSize,
    });
    expected = end;
  }
  if ((await readAt(file, expected, 4)).readUInt32LE(0) !== CENTRAL_HEADER) {
    throw new FileFormatError("The zip has unlisted data before its central directory");
  }
  return { records, directoryStart: expected };
}

/** The sizes a local header's zip64 extra field (0x0001) states: both, uncompressed first (APPNOTE 4.5.3). */
function zip64Sizes(extra: Buffer, name: string): { uncompressed: number; compressed: number } | undefined {
  for (let at = 0; at + 4 <= extra.length;) {
    const id = extra.readUInt16LE(at);
    const size = extra.readUInt16LE(at + 2);
    if (at + 4 + size > extra.length) throw new FileFormatError(`The zip entry ${name} has a malformed extra field`);
    if (id === ZIP64_EXTRA) {
      if (size < 16) throw new FileFormatError(`The zip entry ${name} has a zip64 extra field without both sizes`);
      return {
        uncompressed: safe(extra.readBigUInt64LE(at + 4), name),
        compressed: safe(extra.readBigUInt64LE(at + 12), name),
      };
    }
    at += 4 + size;
  }
  return undefined;
}

function safe(value: bigint, name: string): number {
  if (value > BigInt(Number.MAX_SAFE_INTEGER))
    throw new FileFormatError(`The zip entry ${name} states an impossible size`);
  return Number(value);
}

/** A 32-bit size, or the zip64 one it points to (NaN, which matches nothing, when there is none). */
const resolved = (size: number, zip64: number | undefined): number =>
  size === ZIP64_MARK ? (zip64 ?? Number.NaN) : size;

function checkSizes(sizes: { compressed: number; uncompressed: number }, entry: yauzl.Entry): void {
  if (sizes.compressed !== entry.compressedSize || sizes.uncompressed !== entry.uncompressedSize) {
    throw new FileFormatError(`The zip entry ${entry.fileName} has sizes that disagree with the central directory`);
  }
}

/**
 * The length of the data descriptor at `at`, once it is shown to state the directory's CRC and sizes:
 * with or without its (optional) signature, with 64-bit sizes (expected after a zip64 local header)
 * or 32-bit ones.
 */
async function descriptorLength(file: FileHandle, at: number, entry: yauzl.Entry, zip64: boolean): Promise<number> {
  const bytes = Buffer.alloc(24);
  const { bytesRead } = await file.read(bytes, 0, bytes.length, at);
  const states = (offset: number, width: 4 | 8): boolean => {
    if (bytesRead < offset + 4 + 2 * width) return false;
    const size = (o: number): number => (width === 8 ? Number(bytes.readBigUInt64LE(o)) : bytes.readUInt32LE(o));
    return (
      bytes.readUInt32LE(offset) === entry.crc32 &&
      size(offset + 4) === entry.compressedSize &&
      size(offset + 4 + width) === entry.uncompressedSize
    );
  };
  const signed = bytesRead >= 4 && bytes.readUInt32LE(0) === DATA_DESCRIPTOR;
  for (const width of zip64 ? ([8, 4] as const) : ([4, 8] as const)) {
    if (signed && states(4, width)) return 4 + 4 + 2 * width;
    if (states(0, width)) return 4 + 2 * width;
  }
  throw new FileFormatError(`The zip entry ${entry.fileName} has no data descriptor stating its CRC and sizes`);
}

export async function readAt(file: FileHandle, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.alloc(length);
  const { bytesRead } = await file.read(buffer, 0, length, position);
  if (bytesRead < length) throw new FileFormatError("The zip is truncated");
  return buffer;
}
