import { Readable } from "node:stream";

/** The largest piece of a file a reader is handed at once. */
export const READ_CHUNK_BYTES = 64 * 1024;

/**
 * The same bytes in pieces of at most `size`. A reader parses what it is handed before it yields, so
 * a file handed over whole (a dry run's body) would otherwise be parsed into all its records at once;
 * in pieces, at most one piece's records are held.
 */
export function boundedChunks(input: Readable, size = READ_CHUNK_BYTES): Readable {
  async function* pieces(): AsyncGenerator<Buffer> {
    for await (const chunk of input as AsyncIterable<Buffer | string>) {
      const bytes = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
      for (let start = 0; start < bytes.length; start += size) yield bytes.subarray(start, start + size);
    }
  }
  return Readable.from(pieces(), { objectMode: false });
}
