import { createWriteStream } from "node:fs";
import { mkdtemp, open, rm, type FileHandle } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Transform, type Readable } from "node:stream";
import { crc32 } from "node:zlib";
import { pipeline } from "node:stream/promises";
import yauzl from "yauzl";
import { FileFormatError } from "./source-record";

/** Limits a zip (an XLSX) must keep before any of it is handed to a parser. */
export interface ZipBounds {
  /** The file itself, as delivered. */
  maxFileBytes: number;
  maxEntries: number;
  /** All entries together, inflated. */
  maxUncompressedBytes: number;
  /** One entry's inflated size over its compressed size, for entries above `ratioFloorBytes`. */
  maxRatio: number;
  ratioFloorBytes: number;
  /** Entries a reader holds in memory whole (an XLSX's shared strings), by name. */
  maxInMemoryEntryBytes: number;
  inMemoryEntries: readonly string[];
}

export const DEFAULT_ZIP_BOUNDS: ZipBounds = {
  maxFileBytes: 256 * 2 ** 20,
  maxEntries: 1000,
  maxUncompressedBytes: 2 ** 30,
  maxRatio: 200,
  ratioFloorBytes: 2 ** 20,
  maxInMemoryEntryBytes: 128 * 2 ** 20,
  inMemoryEntries: ["xl/sharedStrings.xml"],
};

/** A zip spooled to a private temporary file and checked; `dispose` removes it. */
export interface CheckedZip {
  path: string;
  /** Each entry's local record (header, data and any data descriptor): bytes `start` to `end` (exclusive). */
  records: ZipRecord[];
  /** Where the central directory starts (the records end there). */
  directoryStart: number;
  dispose(): Promise<void>;
}

export interface ZipRecord {
  name: string;
  start: number;
  end: number;
}

const LOCAL_HEADER = 0x04034b50;
const CENTRAL_HEADER = 0x02014b50;
const DATA_DESCRIPTOR = 0x08074b50;

/**
 * Spools `input` to a temporary file (the central directory is at the end, so a zip cannot be
 * judged from a stream) and refuses, with a FileFormatError, anything that is not a plain zip within
 * `bounds`: too many entries, declared sizes or ratios over the caps, encrypted or unknown methods,
 * and — inflating every entry once with yauzl, which stops an entry the moment it yields more than
 * its declared size — a header that lies about its size. The local headers must also tile the file
 * exactly as the central directory says, so a parser that walks local headers front to back (as
 * exceljs's unzipper does) sees the very entries that were checked and nothing hidden between them.
 */
export async function spoolCheckedZip(input: Readable, bounds: ZipBounds = DEFAULT_ZIP_BOUNDS): Promise<CheckedZip> {
  const dir = await mkdtemp(join(tmpdir(), "ids-zip-"));
  const path = join(dir, "file.zip");
  const dispose = () => rm(dir, { recursive: true, force: true });
  try {
    // A failure to read the input (a blob read that broke off) is not the file's fault: it propagates as is.
    await spool(input, path, bounds.maxFileBytes);
  } catch (error) {
    await dispose();
    throw error;
  }
  try {
    const { records, directoryStart } = await checkZip(path, bounds);
    return { path, records, directoryStart, dispose };
  } catch (error) {
    await dispose();
    throw error instanceof FileFormatError ? error : new FileFormatError(`Not a readable zip file: ${message(error)}`);
  }
}

async function spool(input: Readable, path: string, maxBytes: number): Promise<void> {
  let bytes = 0;
  const cap = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      bytes += chunk.length;
      if (bytes > maxBytes) done(new FileFormatError(`The file is larger than ${maxBytes} bytes`));
      else done(null, chunk);
    },
  });
  await pipeline(input, cap, createWriteStream(path));
}

async function checkZip(path: string, bounds: ZipBounds): Promise<{ records: ZipRecord[]; directoryStart: number }> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.open(path, { lazyEntries: true, autoClose: false, validateEntrySizes: true }, (error, file) =>
      error ? reject(error) : resolve(file),
    ),
  );
  try {
    if (zip.entryCount > bounds.maxEntries) {
      throw new FileFormatError(`The zip has ${zip.entryCount} entries, more than ${bounds.maxEntries}`);
    }
    const entries = await readCentralDirectory(zip);
    checkDeclaredSizes(entries, bounds);
    const file = await open(path, "r");
    let layout: { records: ZipRecord[]; directoryStart: number };
    try {
      layout = await checkLocalHeaders(file, entries);
    } finally {
      await file.close();
    }
    await inflateAll(zip, entries, bounds);
    return layout;
  } finally {
    zip.close();
  }
}

function readCentralDirectory(zip: yauzl.ZipFile): Promise<yauzl.Entry[]> {
  return new Promise((resolve, reject) => {
    const entries: yauzl.Entry[] = [];
    zip.on("entry", (entry: yauzl.Entry) => {
      entries.push(entry);
      zip.readEntry();
    });
    zip.on("end", () => resolve(entries));
    zip.on("error", reject);
    zip.readEntry();
  });
}

function checkDeclaredSizes(entries: yauzl.Entry[], bounds: ZipBounds): void {
  let total = 0;
  for (const entry of entries) {
    if (entry.isEncrypted()) throw new FileFormatError(`The zip entry ${entry.fileName} is encrypted`);
    if (entry.compressionMethod !== 0 && entry.compressionMethod !== 8) {
      throw new FileFormatError(`The zip entry ${entry.fileName} uses compression method ${entry.compressionMethod}`);
    }
    total += entry.uncompressedSize;
    if (total > bounds.maxUncompressedBytes) {
      throw new FileFormatError(`The zip inflates to more than ${bounds.maxUncompressedBytes} bytes`);
    }
    if (
      entry.uncompressedSize > bounds.ratioFloorBytes &&
      entry.uncompressedSize > bounds.maxRatio * Math.max(entry.compressedSize, 1)
    ) {
      throw new FileFormatError(`The zip entry ${entry.fileName} has a compression ratio over ${bounds.maxRatio}`);
    }
    if (bounds.inMemoryEntries.includes(entry.fileName) && entry.uncompressedSize > bounds.maxInMemoryEntryBytes) {
      throw new FileFormatError(`The zip entry ${entry.fileName} is larger than ${bounds.maxInMemoryEntryBytes} bytes`);
    }
  }
}

async function checkLocalHeaders(
  file: FileHandle,
  entries: yauzl.Entry[],
): Promise<{ records: ZipRecord[]; directoryStart: number }> {
  const records: ZipRecord[] = [];
  const ordered = [...entries].sort((a, b) => a.relativeOffsetOfLocalHeader - b.relativeOffsetOfLocalHeader);
  let expected = 0;
  for (const entry of ordered) {
    const offset = entry.relativeOffsetOfLocalHeader;
    if (offset !== expected) throw new FileFormatError(`The zip has unlisted data before ${entry.fileName}`);
    const header = await readAt(file, offset, 30);
    if (header.readUInt32LE(0) !== LOCAL_HEADER) throw new FileFormatError(`The zip entry ${entry.fileName} has no local header`);
    const flags = header.readUInt16LE(6);
    const compressedSize = header.readUInt32LE(18);
    const uncompressedSize = header.readUInt32LE(22);
    const dataStart = offset + 30 + header.readUInt16LE(26) + header.readUInt16LE(28);
    const dataEnd = dataStart + entry.compressedSize;
    const sizesInDescriptor = (flags & 0x08) !== 0 && compressedSize === 0;
    if (sizesInDescriptor) {
      // A front-to-back reader finds this entry's end by the descriptor's signature: it must not
      // occur earlier, or that reader would see different entries than the central directory lists.
      if (await contains(file, dataStart, dataEnd, DATA_DESCRIPTOR)) {
        throw new FileFormatError(`The zip entry ${entry.fileName} has an ambiguous data descriptor`);
      }
      if ((await readAt(file, dataEnd, 4)).readUInt32LE(0) !== DATA_DESCRIPTOR) {
        throw new FileFormatError(`The zip entry ${entry.fileName} has no data descriptor`);
      }
      expected = dataEnd + 16;
    } else {
      if (compressedSize !== entry.compressedSize || uncompressedSize !== entry.uncompressedSize) {
        throw new FileFormatError(`The zip entry ${entry.fileName} has sizes that disagree with the central directory`);
      }
      expected = dataEnd + ((flags & 0x08) !== 0 ? 16 : 0);
    }
    records.push({ name: entry.fileName, start: offset, end: expected });
  }
  if ((await readAt(file, expected, 4)).readUInt32LE(0) !== CENTRAL_HEADER) {
    throw new FileFormatError("The zip has unlisted data before its central directory");
  }
  return { records, directoryStart: expected };
}

async function readAt(file: FileHandle, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.alloc(length);
  const { bytesRead } = await file.read(buffer, 0, length, position);
  if (bytesRead < length) throw new FileFormatError("The zip is truncated");
  return buffer;
}

async function contains(file: FileHandle, start: number, end: number, signature: number): Promise<boolean> {
  const needle = Buffer.alloc(4);
  needle.writeUInt32LE(signature);
  const chunk = Buffer.alloc(1 << 16);
  for (let position = start; position < end; position += chunk.length - 3) {
    const { bytesRead } = await file.read(chunk, 0, Math.min(chunk.length, end - position), position);
    if (chunk.subarray(0, bytesRead).includes(needle)) return true;
    if (bytesRead < chunk.length) break;
  }
  return false;
}

async function inflateAll(zip: yauzl.ZipFile, entries: yauzl.Entry[], bounds: ZipBounds): Promise<void> {
  let total = 0;
  for (const entry of entries) {
    const stream = await new Promise<Readable>((resolve, reject) =>
      zip.openReadStream(entry, (error, readable) => (error ? reject(error) : resolve(readable))),
    );
    // yauzl errors once an entry passes its declared size; the running total is a second fence.
    let crc = 0;
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      crc = crc32(chunk, crc);
      total += chunk.length;
      if (total > bounds.maxUncompressedBytes) {
        stream.destroy();
        throw new FileFormatError(`The zip inflates to more than ${bounds.maxUncompressedBytes} bytes`);
      }
    }
    if (crc !== entry.crc32) throw new FileFormatError(`The zip entry ${entry.fileName} is corrupt (CRC mismatch)`);
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
