import { createReadStream } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { FileFormatError, type SourceRecord } from "../domain/source-record";
import { readXml, type XmlOptions } from "./xml-reader";

const fixtures = join(__dirname, "../../test/fixtures/feeds/xml");
const balances = { recordPath: "Document.SctiesBalCtdyRpt.BalForAcct" };

async function collect(input: Readable, options: XmlOptions): Promise<SourceRecord[]> {
  const out = [];
  for await (const record of readXml(input, options)) out.push(record);
  return out;
}
const text = (xml: string | Buffer, options: XmlOptions = balances) =>
  collect(Readable.from([Buffer.from(xml)]), options);

async function refusal(input: Promise<unknown>): Promise<FileFormatError> {
  const error: unknown = await input.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(FileFormatError);
  return error as FileFormatError;
}

describe("readXml", () => {
  it("reads an ISO 20022 custody statement's balances as records: children by name, repeats as arrays, attributes as @name", async () => {
    const records = await collect(createReadStream(join(fixtures, "custody-statement-semt002.xml")), balances);
    expect(records).toHaveLength(3);
    expect(records[0]).toEqual({
      row: 1,
      values: {
        FinInstrmId: { ISIN: "US0378331005", Desc: "APPLE INC" },
        AggtBal: { Qty: { Qty: { Unit: "1500" } }, ShrtLngInd: "LONG" },
        PricDtls: { Tp: { Cd: "MRKT" }, Val: { Amt: { "@Ccy": "USD", "#text": "189.25" } } },
        AcctBaseCcyAmts: { HldgVal: { Amt: { "@Ccy": "EUR", "#text": "262108.50" }, CdtDbtInd: "CRDT" } },
      },
    });
    expect(records[1]?.values).toMatchObject({
      FinInstrmId: { ISIN: "CH0038863350", Desc: "NESTLÉ SA & CO" },
      SubBal: [
        { Tp: { Cd: "AWAS" }, Qty: { Qty: { Unit: "150.5" } } },
        { Tp: { Cd: "BLOK" }, Qty: { Qty: { Unit: "50" } } },
      ],
    });
    expect(records[2]).toMatchObject({ row: 3, values: { FinInstrmId: { Desc: "SAP SE <registered>" } } });
  });

  it("strips namespace prefixes from elements and attributes and drops xmlns declarations", async () => {
    const xml = `<n:Document xmlns:n="urn:x" xmlns:a="urn:a"><n:Rpt><n:Bal a:Ccy="EUR" xmlns:b="urn:b"><n:Amt>1</n:Amt></n:Bal></n:Rpt></n:Document>`;
    expect(await text(xml, { recordPath: "Document.Rpt.Bal" })).toEqual([
      { row: 1, values: { "@Ccy": "EUR", Amt: "1" } },
    ]);
  });

  it("reads records split across any chunk boundaries, a BOM and windows-1252 text", async () => {
    const xml = Buffer.from(`\uFEFF<Document><R><V>Zürich</V></R><R><V>Genève</V></R></Document>`);
    const chunks = [...xml].map((byte) => Buffer.from([byte]));
    expect(await collect(Readable.from(chunks), { recordPath: "Document.R" })).toEqual([
      { row: 1, values: { V: "Zürich" } },
      { row: 2, values: { V: "Genève" } },
    ]);
    const latin = Buffer.from([...Buffer.from("<Document><R><V>Z"), 0xfc, ...Buffer.from("rich</V></R></Document>")]);
    expect(await text(latin, { recordPath: "Document.R", encoding: "windows-1252" })).toEqual([
      { row: 1, values: { V: "Zürich" } },
    ]);
  });

  it("refuses a document whose root is not the record path's", async () => {
    expect((await refusal(text("<Other><R/></Other>", { recordPath: "Document.R" }))).message).toMatch(/root is Other/);
  });

  it("refuses billion laughs and an external entity without expanding or fetching anything", async () => {
    for (const file of ["billion-laughs.xml", "external-entity.xml"]) {
      const error = await refusal(collect(createReadStream(join(fixtures, file)), balances));
      expect(error.message).toMatch(/DOCTYPE is not allowed/);
    }
    // An entity used without a declaration is no way around it.
    expect(
      (await refusal(text("<Document><SctiesBalCtdyRpt><BalForAcct>&lol9;</BalForAcct></SctiesBalCtdyRpt></Document>")))
        .message,
    ).toMatch(/Malformed XML/);
  });

  it("refuses malformed XML naming the record it stopped in", async () => {
    const xml =
      "<Document><SctiesBalCtdyRpt><BalForAcct><A>1</A></BalForAcct><BalForAcct><A>2</B></BalForAcct></SctiesBalCtdyRpt></Document>";
    const error = await refusal(text(xml));
    expect(error.message).toMatch(/Malformed XML/);
    expect(error.row).toBe(2);
    expect((await refusal(text("<Document><SctiesBalCtdyRpt>"))).message).toMatch(/Malformed XML/);
    expect(
      (await refusal(text(Buffer.from([0x3c, 0x44, 0x3e, 0xff, 0xfe, 0x3c, 0x2f, 0x44, 0x3e]), { recordPath: "D" })))
        .message,
    ).toMatch(/Not a readable XML file/);
  });

  it("bounds depth and record size", async () => {
    const deep = "<Document>" + "<a>".repeat(100) + "</a>".repeat(100) + "</Document>";
    expect((await refusal(text(deep, { recordPath: "Document.a" }))).message).toMatch(/deeper than 64/);
    const big = `<Document><R><V>${"x".repeat(2 << 20)}</V></R></Document>`;
    const error = await refusal(text(big, { recordPath: "Document.R" }));
    expect(error.message).toMatch(/longer than/);
    expect(error.row).toBe(1);
    const endless = Readable.from(
      (function* () {
        yield Buffer.from("<Document><R>");
        for (let i = 0; i < 10_000; i += 1) yield Buffer.alloc(1024, "y");
      })(),
    );
    expect((await refusal(collect(endless, { recordPath: "Document.Other" }))).message).toMatch(/without a tag/);
  });

  it("streams 200,000 records with bounded heap growth", async () => {
    const count = 200_000;
    function* document() {
      yield Buffer.from(
        '<?xml version="1.0"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:semt.002.001.11"><SctiesBalCtdyRpt>',
      );
      for (let i = 0; i < count; i += 1000) {
        let chunk = "";
        for (let j = i; j < i + 1000; j += 1) {
          chunk += `<BalForAcct><FinInstrmId><ISIN>XS${String(j).padStart(10, "0")}</ISIN></FinInstrmId><AggtBal><Qty><Qty><Unit>${j}.5</Unit></Qty></Qty></AggtBal><PricDtls><Val><Amt Ccy="EUR">${j % 97}.01</Amt></Val></PricDtls></BalForAcct>`;
        }
        yield Buffer.from(chunk);
      }
      yield Buffer.from("</SctiesBalCtdyRpt></Document>");
    }
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    gc();
    const before = process.memoryUsage().heapUsed;
    let peak = before;
    let seen = 0;
    let last: SourceRecord | undefined;
    for await (const record of readXml(Readable.from(document()), balances)) {
      seen += 1;
      last = record;
      if (seen % 20_000 === 0) {
        gc();
        peak = Math.max(peak, process.memoryUsage().heapUsed);
      }
    }
    expect(seen).toBe(count);
    expect(last).toEqual({
      row: count,
      values: {
        FinInstrmId: { ISIN: "XS0000199999" },
        AggtBal: { Qty: { Qty: { Unit: "199999.5" } } },
        PricDtls: { Val: { Amt: { "@Ccy": "EUR", "#text": "82.01" } } },
      },
    });
    // The whole document is about 40 MB of text; a reader that kept it would grow far past this.
    expect(peak - before).toBeLessThan(8 * 2 ** 20);
  });
});
