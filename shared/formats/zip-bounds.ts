import { createWriteStream } from "node:fs";
import { mkdtemp, open, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Transform, type Readable } from "node:stream";
import { crc32 } from "node:zlib";
import { pipeline } from "node:stream/promises";
import yauzl from "yauzl";
import { FileFormatError } from "../domain/source-record";
import { XmlPartScan } from "./xml-part-scan";
import { checkLocalHeaders, type ZipRecord } from "./zip-local-headers";

export type { ZipRecord } from "./zip-local-headers";

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
  /** Entries a reader holds in memory whole (an XLSX's shared strings, styles, workbook), by name: bytes and XML elements each. */
  maxInMemoryEntryBytes: number;
  maxInMemoryEntryElements: number;
  inMemoryEntries: readonly string[];
  /** XML entries a reader streams (an XLSX's sheets): cells in one row. */
  streamedEntries: RegExp;
  maxRowCells: number;
  /** In any of those entries: bytes of text or markup without a `<`. */
  maxTextRunBytes: number;
}

/**
 * The defaults bound what one workbook makes a reader hold to about 100 MB: a million distinct
 * texts (two elements each), a row as wide as Excel's 16,384 columns, and a text of Excel's 32,767
 * characters (written out, with escapes, well under 256 KiB).
 */
export const DEFAULT_ZIP_BOUNDS: ZipBounds = {
  maxFileBytes: 256 * 2 ** 20,
  maxEntries: 1000,
  maxUncompressedBytes: 2 ** 30,
  maxRatio: 200,
  ratioFloorBytes: 2 ** 20,
  maxInMemoryEntryBytes: 32 * 2 ** 20,
  maxInMemoryEntryElements: 2_000_000,
  inMemoryEntries: ["xl/sharedStrings.xml", "xl/styles.xml", "xl/workbook.xml", "xl/_rels/workbook.xml.rels"],
  streamedEntries: /^xl\/worksheets\/sheet\d+\.xml$/,
  maxRowCells: 16_384,
  maxTextRunBytes: 256 * 2 ** 10,
};

/** A zip spooled to a private temporary file and checked; `dispose` removes it. */
export interface CheckedZip {
  path: string;
  /** Each entry's local record (header, data and any data descriptor), and its data within it. */
  records: ZipRecord[];
  /** Where the central directory starts (the records end there). */
  directoryStart: number;
  dispose(): Promise<void>;
}

/**
 * Spools `input` to a temporary file (the central directory is at the end, so a zip cannot be
 * judged from a stream) and refuses, with a FileFormatError, anything that is not a plain zip within
 * `bounds`: too many entries, declared sizes or ratios over the caps, encrypted or unknown methods,
 * and — inflating every entry once with yauzl, which stops an entry the moment it yields more than
 * its declared size — a header that lies about its size. The local headers must also tile the file
 * exactly as the central directory says (zip64 and data descriptors resolved), and the records give
 * each entry's data range, so a parser is handed the very bytes that were checked, nothing hidden.
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

async function inflateAll(zip: yauzl.ZipFile, entries: yauzl.Entry[], bounds: ZipBounds): Promise<void> {
  let total = 0;
  for (const entry of entries) {
    const stream = await new Promise<Readable>((resolve, reject) =>
      zip.openReadStream(entry, (error, readable) => (error ? reject(error) : resolve(readable))),
    );
    // yauzl errors once an entry passes its declared size; the running total is a second fence.
    let crc = 0;
    const scan = xmlScanOf(entry.fileName, bounds);
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      crc = crc32(chunk, crc);
      total += chunk.length;
      if (total > bounds.maxUncompressedBytes) {
        stream.destroy();
        throw new FileFormatError(`The zip inflates to more than ${bounds.maxUncompressedBytes} bytes`);
      }
      try {
        scan?.write(chunk);
      } catch (error) {
        stream.destroy();
        throw error;
      }
    }
    if (crc !== entry.crc32) throw new FileFormatError(`The zip entry ${entry.fileName} is corrupt (CRC mismatch)`);
  }
}

/** The checks of an XML part a reader will hold whole or stream; none for other entries, which no parser reads. */
function xmlScanOf(name: string, bounds: ZipBounds): XmlPartScan | undefined {
  if (bounds.inMemoryEntries.includes(name))
    return new XmlPartScan(name, {
      maxElements: bounds.maxInMemoryEntryElements,
      maxTextRunBytes: bounds.maxTextRunBytes,
    });
  if (bounds.streamedEntries.test(name))
    return new XmlPartScan(name, { maxRowCells: bounds.maxRowCells, maxTextRunBytes: bounds.maxTextRunBytes });
  return undefined;
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
