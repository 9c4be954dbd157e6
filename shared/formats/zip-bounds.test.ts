import { createReadStream, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { crc32, deflateRawSync } from "node:zlib";
import ExcelJS from "exceljs";
import { describe, expect, it } from "vitest";
import * as XLSX from "xlsx";
import { FileFormatError, type SourceRecord } from "../domain/source-record";
import { readXlsx } from "./xlsx-reader";

const fixtures = join(__dirname, "../../test/fixtures/feeds/xlsx");

async function collect(input: Readable): Promise<SourceRecord[]> {
  const out: SourceRecord[] = [];
  for await (const record of readXlsx(input, {})) out.push(record);
  return out;
}

async function refusal(bytes: Buffer): Promise<FileFormatError> {
  const error: unknown = await collect(Readable.from([bytes])).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(FileFormatError);
  return error as FileFormatError;
}

/** The parts of the SheetJS fixture, by name, uncompressed. */
function partsOf(file: string): { name: string; data: Buffer }[] {
  const container = XLSX.CFB.read(readFileSync(join(fixtures, file)), { type: "buffer" });
  return container.FullPaths.flatMap((path: string, i: number) => {
    const entry = container.FileIndex[i];
    if (entry === undefined || entry.type !== 2 || entry.content === undefined || path.includes("\u0001")) return [];
    return [{ name: path.replace(/^Root Entry\//, ""), data: Buffer.from(entry.content as Uint8Array) }];
  });
}

/**
 * How a writer may lay out each entry. `local`: the sizes the local header states (the real ones,
 * zeros with the sizes in a data descriptor, or 0xFFFFFFFF pointing to a zip64 extra field);
 * `zip64Extra`: that field's sizes (the real ones, or zeros when a descriptor follows); `descriptor`:
 * none, or one with or without its signature, with 32- or 64-bit sizes; `zip64Directory`: the central
 * directory gives sizes and offsets in zip64 extra fields, and zip64 end records close the file.
 */
interface Layout {
  local: "real" | "zero" | "mark";
  zip64Extra?: "real" | "zero";
  descriptor?: { signed: boolean; bits: 32 | 64 };
  zip64Directory?: boolean;
  /** Changes one stated value to test the checks. */
  lie?: "descriptor-crc" | "zip64-size";
}

/** A zip of `parts`, deflated, laid out exactly as `layout` says. */
function zipWith(parts: { name: string; data: Buffer }[], layout: Layout): Buffer {
  const out: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  const push = (b: Buffer) => {
    out.push(b);
    offset += b.length;
  };
  const u16 = (n: number) => Buffer.from([n & 0xff, (n >> 8) & 0xff]);
  const u32 = (n: number) => {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(n >>> 0);
    return b;
  };
  const u64 = (n: number) => {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(n));
    return b;
  };
  for (const part of parts) {
    const name = Buffer.from(part.name);
    const body = deflateRawSync(part.data);
    const crc = crc32(part.data);
    const start = offset;
    const descriptor = layout.descriptor !== undefined;
    const stated = { real: [body.length, part.data.length], zero: [0, 0], mark: [0xffffffff, 0xffffffff] }[
      layout.local
    ];
    let extra = Buffer.alloc(0);
    if (layout.zip64Extra !== undefined) {
      const [u, c] = layout.zip64Extra === "real" ? [part.data.length, body.length] : [0, 0];
      extra = Buffer.concat([u16(1), u16(16), u64(layout.lie === "zip64-size" ? u + 1 : u), u64(c)]);
    }
    push(
      Buffer.concat([
        u32(0x04034b50),
        u16(45),
        u16(descriptor ? 0x08 : 0),
        u16(8),
        u32(0),
        u32(descriptor ? 0 : crc),
        u32(stated[0] ?? 0),
        u32(stated[1] ?? 0),
        u16(name.length),
        u16(extra.length),
        name,
        extra,
      ]),
    );
    push(body);
    if (layout.descriptor !== undefined) {
      const sizes =
        layout.descriptor.bits === 64
          ? [u64(body.length), u64(part.data.length)]
          : [u32(body.length), u32(part.data.length)];
      push(
        Buffer.concat([
          ...(layout.descriptor.signed ? [u32(0x08074b50)] : []),
          u32(layout.lie === "descriptor-crc" ? crc ^ 1 : crc),
          ...sizes,
        ]),
      );
    }
    const z64 = layout.zip64Directory === true;
    const centralExtra = z64
      ? Buffer.concat([u16(1), u16(24), u64(part.data.length), u64(body.length), u64(start)])
      : Buffer.alloc(0);
    central.push(
      Buffer.concat([
        u32(0x02014b50),
        u16(45),
        u16(45),
        u16(descriptor ? 0x08 : 0),
        u16(8),
        u32(0),
        u32(crc),
        u32(z64 ? 0xffffffff : body.length),
        u32(z64 ? 0xffffffff : part.data.length),
        u16(name.length),
        u16(centralExtra.length),
        u16(0),
        u16(0),
        u16(0),
        u32(0),
        u32(z64 ? 0xffffffff : start),
        name,
        centralExtra,
      ]),
    );
  }
  const directoryStart = offset;
  const directory = Buffer.concat(central);
  push(directory);
  if (layout.zip64Directory === true) {
    const record = offset;
    push(
      Buffer.concat([
        u32(0x06064b50),
        u64(44),
        u16(45),
        u16(45),
        u32(0),
        u32(0),
        u64(parts.length),
        u64(parts.length),
        u64(directory.length),
        u64(directoryStart),
      ]),
    );
    push(Buffer.concat([u32(0x07064b50), u32(0), u64(record), u32(1)]));
    push(
      Buffer.concat([
        u32(0x06054b50),
        u16(0),
        u16(0),
        u16(0xffff),
        u16(0xffff),
        u32(0xffffffff),
        u32(0xffffffff),
        u16(0),
      ]),
    );
  } else {
    push(
      Buffer.concat([
        u32(0x06054b50),
        u16(0),
        u16(0),
        u16(parts.length),
        u16(parts.length),
        u32(directory.length),
        u32(directoryStart),
        u16(0),
      ]),
    );
  }
  return Buffer.concat(out);
}

describe("zip64 and data descriptors (finding 15): a valid workbook is read whatever its writer chose", () => {
  const parts = partsOf("positions.xlsx");
  let expected: SourceRecord[];

  it("positions-zip64.xlsx, written by Python's zipfile streaming with zip64 forced (0xFFFFFFFF sizes, zip64 extra of zeros, 64-bit descriptors)", async () => {
    expected = await collect(createReadStream(join(fixtures, "positions.xlsx")));
    expect(expected).toHaveLength(3);
    // The probe's refusal was "sizes that disagree with the central directory".
    expect(readFileSync(join(fixtures, "positions-zip64.xlsx")).readUInt32LE(18)).toBe(0xffffffff);
    expect(await collect(createReadStream(join(fixtures, "positions-zip64.xlsx")))).toEqual(expected);
  });

  it.each<[string, Layout]>([
    [
      "0xFFFFFFFF with the sizes in a zip64 extra field, no descriptor (a seekable zip64 writer)",
      { local: "mark", zip64Extra: "real" },
    ],
    [
      "0xFFFFFFFF, zip64 extra of zeros, signed 64-bit descriptors, zip64 central directory and end records (Zip64Mode.Always, streamed)",
      { local: "mark", zip64Extra: "zero", descriptor: { signed: true, bits: 64 }, zip64Directory: true },
    ],
    [
      "zeros with a zip64 extra of zeros and unsigned 64-bit descriptors",
      { local: "zero", zip64Extra: "zero", descriptor: { signed: false, bits: 64 } },
    ],
    [
      "zeros and unsigned 32-bit descriptors (the signature is optional)",
      { local: "zero", descriptor: { signed: false, bits: 32 } },
    ],
    ["the real sizes and a zip64 extra field stating them too", { local: "real", zip64Extra: "real" }],
  ])("local headers with %s", async (_name, layout) => {
    expected ??= await collect(createReadStream(join(fixtures, "positions.xlsx")));
    expect(await collect(Readable.from([zipWith(parts, layout)]))).toEqual(expected);
  });

  it("a workbook exceljs streams with archiver's forceZip64 (zip64 end records)", async () => {
    const path = join(tmpdir(), `ids-zip64-${process.pid}.xlsx`);
    const writer = new ExcelJS.stream.xlsx.WorkbookWriter({
      filename: path,
      useSharedStrings: true,
      zip: { forceZip64: true },
    });
    const sheet = writer.addWorksheet("Positions");
    sheet.addRow(["Portfolio", "ISIN", "Quantity"]).commit();
    sheet.addRow(["PF-001", "US0378331005", 1500]).commit();
    sheet.commit();
    await writer.commit();
    try {
      expect(await collect(createReadStream(path))).toEqual([
        { row: 1, values: { Portfolio: "PF-001", ISIN: "US0378331005", Quantity: 1500 } },
      ]);
    } finally {
      rmSync(path, { force: true });
    }
  });

  it("still refuses what a zip64 or descriptor form states falsely", async () => {
    expect((await refusal(zipWith(parts, { local: "mark", zip64Extra: "real", lie: "zip64-size" }))).message).toMatch(
      /sizes that disagree with the central directory/,
    );
    expect((await refusal(zipWith(parts, { local: "mark" }))).message).toMatch(
      /sizes that disagree with the central directory/,
    );
    expect(
      (await refusal(zipWith(parts, { local: "zero", descriptor: { signed: true, bits: 32 }, lie: "descriptor-crc" })))
        .message,
    ).toMatch(/no data descriptor stating its CRC and sizes/);
  });
});
