import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { boundedChunks } from "./bounded-chunks";
import { readJson } from "./json-reader";

describe("boundedChunks", () => {
  it("hands a file given in one piece to a reader in pieces of at most the size, byte for byte", async () => {
    const file = Buffer.from(Array.from({ length: 1000 }, (_, i) => String.fromCharCode(32 + (i % 90))).join(""));
    const pieces: Buffer[] = [];
    for await (const piece of boundedChunks(Readable.from([file]), 64)) pieces.push(piece as Buffer);
    expect(pieces.every((p) => p.length <= 64)).toBe(true);
    expect(Buffer.concat(pieces).equals(file)).toBe(true);
  });

  it("lets a reader yield the first record of a large body before it has parsed the rest", async () => {
    const body = Buffer.from(`[${Array.from({ length: 50_000 }, (_, i) => `{"n":${i}}`).join(",")}]`);
    const pieces = boundedChunks(Readable.from([body]), 1024);
    let handed = 0;
    async function* counted(): AsyncGenerator<Buffer> {
      for await (const piece of pieces) {
        handed += 1;
        yield piece as Buffer;
      }
    }
    for await (const record of readJson(Readable.from(counted(), { objectMode: false }), {})) {
      expect(record.values).toEqual({ n: 0 });
      break;
    }
    // Of about 580 pieces, the reader took the first few (and what stream buffering reads ahead).
    expect(handed).toBeLessThan(40);
  });
});
