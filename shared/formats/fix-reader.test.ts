import { createReadStream, readFileSync } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { MAX_FIX_GROUP_ENTRIES, readFix, type FixOptions } from "./fix-reader";
import { MAX_FIX_FIELDS } from "./fix-reader-message";
import { FileFormatError, type SourceRecord } from "../domain/source-record";

const fixtures = join(__dirname, "../../test/fixtures/feeds/fix");

async function collect(input: Readable, options: FixOptions = {}): Promise<SourceRecord[]> {
  const records: SourceRecord[] = [];
  for await (const record of readFix(input, options)) records.push(record);
  return records;
}

function chunked(bytes: Buffer, size: number): Readable {
  const chunks: Buffer[] = [];
  for (let start = 0; start < bytes.length; start += size) chunks.push(bytes.subarray(start, start + size));
  return Readable.from(chunks, { objectMode: false });
}

const text = (value: string) => chunked(Buffer.from(value, "latin1"), 64 * 1024);

async function failure(input: Readable, options: FixOptions = {}): Promise<FileFormatError> {
  const error: unknown = await collect(input, options).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(FileFormatError);
  return error as FileFormatError;
}

/** A message with a correct BodyLength and checksum (SOH-separated), as a counterparty would send it. */
function message(type: string, fields: [string, string][], seq = 1): string {
  const body = [["35", type], ["34", String(seq)], ...fields].map(([tag, value]) => `${tag}=${value}\x01`).join("");
  const head = `8=FIX.4.4\x019=${Buffer.byteLength(body, "latin1")}\x01`;
  let sum = 0;
  for (const byte of Buffer.from(head + body, "latin1")) sum += byte;
  return `${head + body}10=${String(sum % 256).padStart(3, "0")}\x01`;
}

const heartbeat = (seq: number) => message("0", [], seq);

describe("readFix", () => {
  it("reads position reports (35=AP) with parties and positions as groups, skipping the logon, heartbeat and logout", async () => {
    const records = await collect(createReadStream(join(fixtures, "position-reports-soh.fix")), { msgTypes: ["AP"] });
    expect(records.map((record) => record.row)).toEqual([1, 2]);
    expect(records[0]?.values).toMatchObject({
      "35": "AP",
      "34": "2",
      "715": "20241231",
      "453": [
        { "448": "PF-GROWTH-01", "447": "D", "452": "38" },
        { "448": "CUSTODIAN-BANK", "447": "D", "452": "4" },
      ],
      "55": "AAPL",
      "48": "US0378331005",
      "22": "4",
      "15": "USD",
      "702": [
        { "703": "SOD", "704": "300", "705": "0" },
        { "703": "TQ", "704": "400", "705": "0" },
      ],
      "730": "250.42",
      "753": [{ "707": "SMTM", "708": "100168.00" }],
    });
    expect(records[1]?.values).toMatchObject({
      "48": "CH0038863350",
      "702": [{ "703": "TQ", "704": "0", "705": "150" }],
    });
  });

  it("reads execution reports (35=8) from a '|' session log with timestamps before each message", async () => {
    const records = await collect(createReadStream(join(fixtures, "execution-reports-pipe.log")), { msgTypes: ["8"] });
    expect(records).toHaveLength(2);
    expect(records[0]).toMatchObject({
      row: 1,
      values: {
        "17": "EX-88123",
        "37": "ORD-5521",
        "11": "CL-20241202-001",
        "39": "2",
        "150": "F",
        "54": "1",
        "55": "AAPL",
        "48": "US0378331005",
        "22": "4",
        "32": "100",
        "31": "239.59",
        "38": "100",
        "14": "100",
        "6": "239.59",
        "60": "20241202-14:31:05.401",
        "75": "20241202",
        "64": "20241204",
        "15": "USD",
        "381": "23959.00",
        "118": "23971.50",
        "453": [{ "448": "PF-GROWTH-01", "447": "D", "452": "24" }],
        "136": [
          { "137": "10.00", "138": "USD", "139": "1" },
          { "137": "2.50", "138": "USD", "139": "2" },
        ],
      },
    });
    expect(records[1]?.values).toMatchObject({ "39": "1", "150": "1", "136": [] });
  });

  it("reads a raw stream (messages run together, no line breaks) the same way, in any chunking", async () => {
    const lines = readFileSync(join(fixtures, "position-reports-soh.fix"));
    const raw = Buffer.from(lines.toString("latin1").replaceAll("\n", ""), "latin1");
    const expected = await collect(chunked(lines, lines.length), { msgTypes: ["AP"] });
    expect(await collect(chunked(raw, raw.length), { msgTypes: ["AP"] })).toEqual(expected);
    expect(await collect(chunked(raw, 1), { msgTypes: ["AP"] })).toEqual(expected);
    expect(await collect(chunked(raw, 37), { msgTypes: ["AP"] })).toEqual(expected);
  });

  it("takes every application message when msgTypes is absent", async () => {
    const file =
      heartbeat(1) + message("8", [["17", "E1"]], 2) + message("AP", [["721", "P1"]], 3) + message("A", [], 4);
    const records = await collect(text(file));
    expect(records.map((record) => record.values["35"])).toEqual(["8", "AP"]);
  });

  it("reads lines without a checksum, and a data field holding the separator", async () => {
    const file = "8=FIX.4.4|35=8|17=E1|55=AAPL\n8=FIX.4.4|35=8|17=E2|95=5|96=a|b\x01c|55=X|\r\n";
    const records = await collect(text(file), { msgTypes: ["8"] });
    expect(records).toEqual([
      { row: 1, values: { "8": "FIX.4.4", "35": "8", "17": "E1", "55": "AAPL" } },
      { row: 2, values: { "8": "FIX.4.4", "35": "8", "17": "E2", "95": "5", "96": "a|b\x01c", "55": "X" } },
    ]);
  });

  it("refuses a bad checksum, naming the message", async () => {
    const good = message("8", [["17", "E2"]], 2);
    const bad = good.replace(
      /10=(\d{3})\x01$/,
      (_, sum: string) => `10=${String((Number(sum) + 1) % 256).padStart(3, "0")}\x01`,
    );
    const error = await failure(text(`${heartbeat(1)}\n${bad}\n`), { msgTypes: ["8"] });
    expect(error.message).toMatch(/^message 2 \(MsgSeqNum 2\): checksum \(10\) is \d{3}, the message sums to \d{3}$/);
    // A heartbeat is verified too, though it is no record.
    const badHeartbeat = heartbeat(1).replace(/10=\d{3}/, "10=000");
    expect((await failure(text(badHeartbeat), { msgTypes: ["8"] })).message).toMatch(/^message 1 .*checksum/);
  });

  it("accepts a '|' log whose checksum was computed over SOH or over the '|'s", async () => {
    const soh = message("8", [["17", "E1"]]);
    const pipes = soh.replaceAll("\x01", "|");
    expect(await collect(text(pipes))).toHaveLength(1);
    const overPipes = pipes.replace(/10=\d{3}\|$/, () => {
      let sum = 0;
      for (const byte of Buffer.from(pipes.slice(0, pipes.indexOf("10=")), "latin1")) sum += byte;
      return `10=${String(sum % 256).padStart(3, "0")}|`;
    });
    expect(await collect(text(overPipes))).toHaveLength(1);
  });

  it("refuses a wrong BodyLength", async () => {
    const wrong = message("8", [["17", "E1"]]).replace(
      /\x019=(\d+)\x01/,
      (_, length: string) => `\x019=${Number(length) + 2}\x01`,
    );
    expect((await failure(text(wrong))).message).toMatch(/^message 1: BodyLength \(9\) is \d+, the body is \d+ bytes$/);
  });

  it("refuses a group whose count does not match its entries, or an unknown repeated tag", async () => {
    const short = message("AP", [
      ["702", "2"],
      ["703", "TQ"],
      ["704", "1"],
      ["55", "X"],
    ]);
    const error = await failure(text(short), { msgTypes: ["AP"] });
    expect(error.row).toBe(1);
    expect(error.message).toBe("message 1: group 702 declares 2 entries, 1 found (each starts with tag 703)");
    const missingDelimiter = message("AP", [
      ["702", "1"],
      ["704", "1"],
    ]);
    expect((await failure(text(missingDelimiter), { msgTypes: ["AP"] })).message).toMatch(
      /group 702 declares 1 entries, 0 found/,
    );
    const legs = message("8", [
      ["555", "2"],
      ["600", "A"],
      ["600", "B"],
    ]);
    expect((await failure(text(legs))).message).toBe(
      "message 1: tag 600 repeats outside a repeating group this reader knows",
    );
  });

  it("nests groups inside groups", async () => {
    const file = message("AP", [
      ["702", "1"],
      ["703", "TQ"],
      ["539", "2"],
      ["524", "ACC1"],
      ["538", "24"],
      ["524", "ACC2"],
      ["538", "24"],
      ["704", "5"],
      ["55", "X"],
    ]);
    const [record] = await collect(text(file));
    expect(record?.values["702"]).toEqual([
      {
        "703": "TQ",
        "539": [
          { "524": "ACC1", "538": "24" },
          { "524": "ACC2", "538": "24" },
        ],
        "704": "5",
      },
    ]);
    expect(record?.values["55"]).toBe("X");
  });

  it("refuses what is not FIX: a foreign line, a message without MsgType, a cut-off message, garbage", async () => {
    expect((await failure(text(`${heartbeat(1)}\nhello world\n${heartbeat(2)}`))).message).toBe(
      'before message 2: "hello world" is not a FIX message',
    );
    expect((await failure(text("isin,qty\nX,1\n"))).message).toMatch(/is not a FIX message/);
    expect((await failure(text("8=FIX.4.4|9=5|49=A|\n"))).message).toBe("message 1 has no MsgType (35)");
    expect((await failure(text("8=FIX.4.4|35=8|17=E1|x=1|"))).message).toMatch(/malformed field/);
    const cut = message("8", [
      ["95", "50"],
      ["96", "short"],
    ]);
    expect((await failure(text(cut))).message).toBe("message 1 is cut off at the end of the file");
  });

  it("refuses an endless message in bounded memory", async () => {
    let produced = 0;
    async function* endless() {
      yield Buffer.from("8=FIX.4.4\x0135=8\x0158=");
      for (;;) {
        produced += 1;
        yield Buffer.alloc(64 * 1024, "x");
      }
    }
    expect((await failure(Readable.from(endless()))).message).toMatch(/longer than/);
    expect(produced).toBeLessThan(40);
  });

  it("refuses a message of 150,000 group entries (900 KB) with a clear error, in bounded memory, whole or in chunks", async () => {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    // The probe's file: one 35=W declaring 150,000 NoPositions entries of one field each. Built as
    // objects keyed by tag numbers, it took gigabytes and crashed the process.
    const bomb = Buffer.from(
      message("W", [
        ["55", "X"],
        ["702", "150000"],
        ...Array.from({ length: 150_000 }, (): [string, string] => ["703", "1"]),
      ]),
      "latin1",
    );
    expect(bomb.length).toBeGreaterThan(900_000);
    for (const input of [() => chunked(bomb, 64 * 1024), () => Readable.from([bomb])]) {
      gc();
      const baseline = process.memoryUsage().heapUsed;
      const error = await failure(input());
      expect(error.message).toBe(`message 1 has more than ${MAX_FIX_FIELDS} fields`);
      expect(process.memoryUsage().heapUsed - baseline).toBeLessThan(64 << 20);
    }
  });

  it("refuses more repeating-group entries than a message may hold, however the count reads", async () => {
    const entries = (n: number): [string, string][] => Array.from({ length: n }, (): [string, string] => ["703", "TQ"]);
    const declared = await failure(
      text(message("AP", [["702", String(MAX_FIX_GROUP_ENTRIES + 1)], ...entries(MAX_FIX_GROUP_ENTRIES + 1)])),
    );
    expect(declared.row).toBe(1);
    expect(declared.message).toBe(
      `message 1: group 702 declares ${MAX_FIX_GROUP_ENTRIES + 1} entries; a message may hold at most ${MAX_FIX_GROUP_ENTRIES} group entries in all`,
    );
    const understated = await failure(text(message("AP", [["702", "2"], ...entries(MAX_FIX_GROUP_ENTRIES + 1)])));
    expect(understated.message).toBe(
      `message 1: group 702 has more entries than ${MAX_FIX_GROUP_ENTRIES}; a message may hold at most ${MAX_FIX_GROUP_ENTRIES} group entries in all`,
    );
    // Nested groups count towards the same bound: 2 positions of 500 parties each, plus the positions.
    const nested: [string, string][] = [["702", "2"]];
    for (let p = 0; p < 2; p += 1)
      nested.push(
        ["703", "TQ"],
        ["539", "500"],
        ...Array.from({ length: 500 }, (): [string, string] => ["524", "ACC"]),
      );
    expect((await failure(text(message("AP", nested)))).message).toMatch(
      /^message 1: group 539 declares 500 entries; a message may hold at most 1000/,
    );
    // At the bound it reads.
    const [record] = await collect(
      text(message("AP", [["702", String(MAX_FIX_GROUP_ENTRIES)], ...entries(MAX_FIX_GROUP_ENTRIES)])),
    );
    expect(record?.values["702"]).toHaveLength(MAX_FIX_GROUP_ENTRIES);
  });

  it("an empty file has no records", async () => {
    expect(await collect(text(""))).toEqual([]);
    expect(await collect(text("\n\r\n"))).toEqual([]);
  });

  it("streams 100,000 messages in bounded memory", async () => {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const total = 100_000;
    async function* stream() {
      let batch = "";
      for (let index = 1; index <= total; index += 1) {
        batch +=
          index % 10 === 0
            ? heartbeat(index)
            : message(
                "AP",
                [
                  ["702", "1"],
                  ["703", "TQ"],
                  ["704", String(index)],
                  ["55", "X"],
                ],
                index,
              );
        if (index % 200 === 0) {
          yield Buffer.from(batch, "latin1");
          batch = "";
        }
      }
    }
    gc();
    const baseline = process.memoryUsage().heapUsed;
    let peak = 0;
    let last: SourceRecord | undefined;
    for await (const record of readFix(Readable.from(stream()), { msgTypes: ["AP"] })) {
      last = record;
      if (record.row % 20_000 === 0) {
        gc();
        peak = Math.max(peak, process.memoryUsage().heapUsed - baseline);
      }
    }
    expect(last).toMatchObject({ row: 90_000, values: { "34": "99999", "702": [{ "704": "99999" }] } });
    expect(peak).toBeLessThan(8 << 20);
  });
});
