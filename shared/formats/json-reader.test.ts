import { createReadStream, readFileSync } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import {
  MAX_JSON_DEPTH,
  MAX_JSON_RECORD_BYTES,
  MAX_JSON_RECORD_OBJECTS,
  readJson,
  type JsonOptions,
} from "./json-reader";
import { FileFormatError, type SourceRecord } from "../domain/source-record";

const navFile = join(__dirname, "../../test/fixtures/feeds/json/fund-admin-nav.json");

async function collect(input: Readable, options: JsonOptions = {}): Promise<SourceRecord[]> {
  const records: SourceRecord[] = [];
  for await (const record of readJson(input, options)) records.push(record);
  return records;
}

function chunked(bytes: Buffer, size: number): Readable {
  const chunks: Buffer[] = [];
  for (let start = 0; start < bytes.length; start += size) chunks.push(bytes.subarray(start, start + size));
  return Readable.from(chunks, { objectMode: false });
}

const text = (value: string) => chunked(Buffer.from(value), 7);

async function failure(input: Readable, options: JsonOptions = {}): Promise<FileFormatError> {
  const error: unknown = await collect(input, options).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(FileFormatError);
  return error as FileFormatError;
}

describe("readJson", () => {
  it("reads a fund administrator's NAV file at recordPath, each record as JSON has it", async () => {
    const records = await collect(createReadStream(navFile), { recordPath: "data.navs" });
    expect(records.map((record) => record.row)).toEqual([1, 2, 3]);
    expect(records[0]?.values).toEqual({
      fundCode: "GLB-EQ-A",
      isin: "LU1234567890",
      shareClass: "A EUR Acc",
      navDate: "2024-12-31",
      navPerShare: 142.3817,
      currency: "EUR",
      sharesOutstanding: 1250340.125,
      totalNetAssets: 178025483.61,
      status: "final",
      fees: { managementFeeRate: 0.015, ongoingCharges: 0.0182 },
    });
    expect(records[1]?.values["distributions"]).toEqual([{ exDate: "2024-12-16", amount: 4.25 }]);
    expect(records[2]?.values).toMatchObject({ fees: null, comment: "Société Générale émission – hedged €/CHF" });
  });

  it("reads the same file the same way one byte at a time (multi-byte characters split)", async () => {
    const bytes = readFileSync(navFile);
    const whole = await collect(chunked(bytes, bytes.length), { recordPath: "data.navs" });
    expect(await collect(chunked(bytes, 1), { recordPath: "data.navs" })).toEqual(whole);
  });

  it("reads a top-level array when recordPath is absent or empty, with a BOM", async () => {
    const file = '\uFEFF[{"isin":"X1","price":1.5},\n {"isin":"X2","price":2}]\n';
    const expected = [
      { row: 1, values: { isin: "X1", price: 1.5 } },
      { row: 2, values: { isin: "X2", price: 2 } },
    ];
    expect(await collect(text(file))).toEqual(expected);
    expect(await collect(text(file), { recordPath: "" })).toEqual(expected);
    expect(await collect(text("[]"))).toEqual([]);
  });

  it("ignores everything around the records, including look-alike keys elsewhere", async () => {
    const file = JSON.stringify({
      meta: { navs: [{ wrong: true }] },
      data: { count: 1, navs: [{ isin: "X1", data: { navs: [1] } }], summary: { total: 1 } },
      trailer: [1, 2, 3],
    });
    expect(await collect(text(file), { recordPath: "data.navs" })).toEqual([
      { row: 1, values: { isin: "X1", data: { navs: [1] } } },
    ]);
  });

  it("keeps a key named __proto__ as a plain value", async () => {
    const [record] = await collect(text('[{"__proto__":{"polluted":true},"a":1}]'));
    expect(Object.getPrototypeOf(record?.values)).toBe(Object.prototype);
    expect(Object.keys(record?.values ?? {})).toEqual(["__proto__", "a"]);
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
  });

  it("refuses malformed JSON, naming the record it was in", async () => {
    const truncated = await failure(text('{"data":{"navs":[{"a":1},{"a":2},{"a":'), { recordPath: "data.navs" });
    expect(truncated.row).toBe(3);
    expect(truncated.message).toMatch(/^the file is not valid JSON \(record 3\)/);
    expect((await failure(text('[{"a":1},]'))).message).toMatch(/not valid JSON/);
    expect((await failure(text('[{"a":1}] trailing'))).message).toMatch(/not valid JSON/);
    const outside = await failure(text('{"x": tru, "data": []}'), { recordPath: "data" });
    expect(outside.row).toBeUndefined();
  });

  it("refuses a recordPath that is missing, an object or a single value", async () => {
    expect((await failure(text('{"data":{"other":[]}}'), { recordPath: "data.navs" })).message).toBe(
      'recordPath "data.navs" is not in the file',
    );
    expect((await failure(text('{"data":{"navs":{"a":{"x":1}}}}'), { recordPath: "data.navs" })).message).toBe(
      'recordPath "data.navs" is an object, not an array of records',
    );
    expect((await failure(text('{"data":{"navs":"none"}}'), { recordPath: "data.navs" })).message).toBe(
      'recordPath "data.navs" is a single value, not an array of records',
    );
    expect((await failure(text('{"navs":[]}'))).message).toBe(
      "the file's top level is an object, not an array of records",
    );
    expect((await failure(text(""))).message).toBe("the file is empty");
    expect((await failure(text("[]"), { recordPath: "a..b" })).message).toMatch(/not a dotted path/);
  });

  it("refuses a record that is not an object", async () => {
    const error = await failure(text('[{"a":1}, 42]'));
    expect(error.row).toBe(2);
    expect(error.message).toBe("record 2 is a number, not an object");
  });

  it("refuses nesting deeper than the bound", async () => {
    const deep = `[${"[".repeat(MAX_JSON_DEPTH + 10)}${"]".repeat(MAX_JSON_DEPTH + 10)}]`;
    expect((await failure(text(deep))).message).toMatch(/nests deeper than/);
  });

  it("refuses a runaway value before it fills memory", async () => {
    let produced = 0;
    async function* runaway() {
      yield Buffer.from('[{"a":"');
      for (;;) {
        produced += 1;
        yield Buffer.alloc(1 << 20, "x");
      }
    }
    expect((await failure(Readable.from(runaway()))).message).toMatch(/larger than/);
    expect(produced).toBeLessThan(20);
  });

  it("refuses a record of objects keyed by numbers (1.5 MB that would take gigabytes) before building them", async () => {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const objects = Array.from({ length: 150_000 }, () => '{"900":1}').join(",");
    const file = Buffer.from(`[{"isin":"DE0007164600","quantity":1},{"isin":"X","lots":[${objects}]}]`);
    gc();
    const baseline = process.memoryUsage().heapUsed;
    const error = await failure(chunked(file, 64 * 1024));
    expect(error.row).toBe(2);
    expect(error.message).toBe(`record 2 holds more than ${MAX_JSON_RECORD_OBJECTS} objects`);
    expect(process.memoryUsage().heapUsed - baseline).toBeLessThan(64 << 20);
    // At the bound a record reads.
    const [record] = await collect(
      text(`[{"lots":[${Array.from({ length: MAX_JSON_RECORD_OBJECTS - 1 }, () => '{"9":1}').join(",")}]}]`),
    );
    expect(record?.values["lots"]).toHaveLength(MAX_JSON_RECORD_OBJECTS - 1);
  });

  it("refuses a record larger than the bound", async () => {
    const big = `[{"a":"${"x".repeat(2 * MAX_JSON_RECORD_BYTES)}"}]`;
    expect((await failure(chunked(Buffer.from(big), 64 * 1024))).message).toMatch(/larger than/);
  });

  it("streams 200,000 records in bounded memory", async () => {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const total = 200_000;
    async function* navs() {
      yield Buffer.from('{"data":{"navs":[');
      let batch: string[] = [];
      for (let index = 0; index < total; index += 1) {
        batch.push(
          `${index === 0 ? "" : ","}{"fundCode":"F${index}","isin":"LU${String(index).padStart(10, "0")}","navDate":"2024-12-31","navPerShare":${(index / 7).toFixed(4)},"currency":"EUR","fees":{"ongoingCharges":0.0123}}`,
        );
        if (batch.length === 400) {
          yield Buffer.from(batch.join(""));
          batch = [];
        }
      }
      yield Buffer.from(`${batch.join("")}]}}`);
    }
    gc();
    const baseline = process.memoryUsage().heapUsed;
    let peak = 0;
    let count = 0;
    let last: SourceRecord | undefined;
    for await (const record of readJson(Readable.from(navs()), { recordPath: "data.navs" })) {
      count += 1;
      last = record;
      if (count % 25_000 === 0) {
        gc();
        peak = Math.max(peak, process.memoryUsage().heapUsed - baseline);
      }
    }
    expect(count).toBe(total);
    expect(last).toMatchObject({ row: total, values: { fundCode: `F${total - 1}` } });
    // The file is about 32 MB; a parser holding it, or the records, would grow the heap far beyond this.
    expect(peak).toBeLessThan(16 << 20);
  });

  it("stops reading the file when the consumer stops", async () => {
    let produced = 0;
    async function* endless() {
      yield Buffer.from("[");
      for (;;) {
        produced += 1;
        yield Buffer.from('{"a":1},'.repeat(100));
      }
    }
    for await (const record of readJson(Readable.from(endless()), {})) if (record.row === 5) break;
    expect(produced).toBeLessThan(10);
  });
});
