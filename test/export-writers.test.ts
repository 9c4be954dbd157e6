import { buffer } from "node:stream/consumers";
import { setTimeout as sleep } from "node:timers/promises";
import { parse } from "csv-parse/sync";
import * as XLSX from "xlsx";
import { describe, expect, it } from "vitest";
import type { DataSet, ExportHeader } from "../shared/ports/exports";
import type { ExportFormat } from "../shared/domain/export-data";
import { writeExport } from "../shared/formats/export/write-export";

const header: ExportHeader = {
  exportId: "ex_0123456789abcdef",
  dataType: "transactions",
  generatedAt: "2026-11-24T22:00:00.000Z",
};

async function* from(records: Record<string, unknown>[]): AsyncGenerator<Record<string, unknown>> {
  yield* records;
}

const tricky: Record<string, unknown>[] = [
  {
    id: "t1",
    name: 'Acme, "Holdings"\nLtd',
    formula: '=HYPERLINK("http://evil")',
    plus: "+1+2",
    minus: "-2+3",
    at: "@SUM(A1)",
    tab: "\tcmd",
    cr: "\rcmd",
    negative: -12.5,
    quantity: 1234.5678,
    unicode: "Zürich — 東京 😀",
    active: true,
    memberIds: ["p1", "p2"],
    nested: { code: "X1", inner: { level: 2 } },
    missing: null,
    tradeDate: "2024-03-28",
    createdAt: "2024-03-28T14:05:06.789Z",
  },
  { id: "t2", name: "plain", negative: 0, quantity: 0, memberIds: [], nested: null, tradeDate: "2024-12-31" },
];
const columns = [
  "id",
  "name",
  "formula",
  "plus",
  "minus",
  "at",
  "tab",
  "cr",
  "negative",
  "quantity",
  "unicode",
  "active",
  "memberIds",
  "nested.code",
  "nested.inner.level",
  "missing",
  "tradeDate",
  "createdAt",
];
const dataSet = (records: Record<string, unknown>[] = tricky, extra: Partial<DataSet> = {}): DataSet => ({
  columns,
  records: from(records),
  ...extra,
});

async function write(format: ExportFormat, set: DataSet): Promise<{ bytes: Buffer; rows: number }> {
  const file = writeExport(format, header, set);
  const bytes = await buffer(file.stream);
  return { bytes, rows: file.rows() };
}

describe("CSV export", () => {
  it("writes a header of the columns, RFC 4180 quoting, flattened and JSON-text fields, empty nulls; csv-parse reads back the values", async () => {
    const { bytes, rows } = await write("csv", dataSet());
    expect(rows).toBe(2);
    const text = bytes.toString("utf8");
    expect(text.startsWith(`${columns.join(",")}\r\n`)).toBe(true);
    const parsed: string[][] = parse(bytes, { bom: false, relax_column_count: false });
    expect(parsed[0]).toEqual(columns);
    const row = Object.fromEntries(columns.map((c, i) => [c, parsed[1]?.[i]]));
    expect(row).toMatchObject({
      id: "t1",
      name: 'Acme, "Holdings"\nLtd',
      negative: "-12.5",
      quantity: "1234.5678",
      unicode: "Zürich — 东京 😀".replace("东", "東"),
      active: "true",
      memberIds: '["p1","p2"]',
      "nested.code": "X1",
      "nested.inner.level": "2",
      missing: "",
      tradeDate: "2024-03-28",
      createdAt: "2024-03-28T14:05:06.789Z",
    });
    expect(text).toContain('"Acme, ""Holdings""\nLtd"');
    const second = Object.fromEntries(columns.map((c, i) => [c, parsed[2]?.[i]]));
    expect(second).toMatchObject({ id: "t2", memberIds: "[]", "nested.code": "", formula: "", negative: "0" });
  });

  it("neutralises cells starting with =, +, -, @, tab or CR with a leading quote; numbers, negative ones too, stay numbers", async () => {
    const { bytes } = await write("csv", dataSet());
    const parsed: string[][] = parse(bytes);
    const row = Object.fromEntries(columns.map((c, i) => [c, parsed[1]?.[i]]));
    expect(row.formula).toBe('\'=HYPERLINK("http://evil")');
    expect(row.plus).toBe("'+1+2");
    expect(row.minus).toBe("'-2+3");
    expect(row.at).toBe("'@SUM(A1)");
    expect(row.tab).toBe("'\tcmd");
    expect(row.cr).toBe("'\rcmd");
    expect(row.negative).toBe("-12.5");
  });

  it("an empty data set is the header row only", async () => {
    const { bytes, rows } = await write("csv", dataSet([]));
    expect(rows).toBe(0);
    expect(bytes.toString("utf8")).toBe(`${columns.join(",")}\r\n`);
  });
});

describe("XLSX export", () => {
  const readBack = (bytes: Buffer) => XLSX.read(bytes, { type: "buffer", cellDates: true, cellNF: true });

  it("one sheet named after the data type, a header row, numbers as numbers, dates and timestamps as dates, arrays as JSON text", async () => {
    const { bytes, rows } = await write(
      "xlsx",
      dataSet(tricky, { columnTypes: { tradeDate: "date", createdAt: "timestamp" } }),
    );
    expect(rows).toBe(2);
    const book = readBack(bytes);
    expect(book.SheetNames).toEqual(["transactions"]);
    const sheet = book.Sheets.transactions!;
    const table: unknown[][] = XLSX.utils.sheet_to_json(sheet, { header: 1, defval: null });
    expect(table[0]).toEqual(columns);
    const at = (row: number, column: string) => sheet[XLSX.utils.encode_cell({ r: row, c: columns.indexOf(column) })];
    expect(at(1, "quantity")).toMatchObject({ t: "n", v: 1234.5678 });
    expect(at(1, "negative")).toMatchObject({ t: "n", v: -12.5 });
    expect(at(1, "active")).toMatchObject({ t: "b", v: true });
    expect(at(1, "name")).toMatchObject({ t: "s", v: 'Acme, "Holdings"\nLtd' });
    expect(at(1, "formula")).toMatchObject({ t: "s", v: '=HYPERLINK("http://evil")' });
    expect(at(1, "formula").f).toBeUndefined();
    expect(at(1, "unicode")).toMatchObject({ t: "s", v: "Zürich — 東京 😀" });
    expect(at(1, "memberIds")).toMatchObject({ t: "s", v: '["p1","p2"]' });
    expect(at(1, "nested.inner.level")).toMatchObject({ t: "n", v: 2 });
    expect(at(1, "missing")).toBeUndefined();
    const tradeDate = at(1, "tradeDate");
    expect(tradeDate.t).toBe("d");
    expect(tradeDate.z).toBe("yyyy-mm-dd");
    expect((tradeDate.v as Date).toISOString().slice(0, 10)).toBe("2024-03-28");
    const createdAt = at(1, "createdAt");
    expect(createdAt.t).toBe("d");
    expect(createdAt.z).toBe("yyyy-mm-dd hh:mm:ss");
    // SheetJS reads the serial in local time; the stored serial is UTC.
    const raw = XLSX.read(bytes, { type: "buffer" }).Sheets.transactions![
      XLSX.utils.encode_cell({ r: 1, c: columns.indexOf("createdAt") })
    ];
    expect(raw.v).toBeCloseTo(45379 + (14 * 3600 + 5 * 60 + 6.789) / 86400, 6);
    expect(at(2, "tradeDate").z).toBe("yyyy-mm-dd");
  });

  it("infers ISO dates and timestamps when the data set gives no column types", async () => {
    const { bytes } = await write("xlsx", dataSet());
    const sheet = readBack(bytes).Sheets.transactions!;
    const at = (column: string) => sheet[XLSX.utils.encode_cell({ r: 1, c: columns.indexOf(column) })];
    expect(at("tradeDate")).toMatchObject({ t: "d", z: "yyyy-mm-dd" });
    expect(at("createdAt")).toMatchObject({ t: "d", z: "yyyy-mm-dd hh:mm:ss" });
    expect(at("id")).toMatchObject({ t: "s", v: "t1" });
  });

  it("freezes the header row", async () => {
    const { bytes } = await write("xlsx", dataSet());
    const zip = XLSX.CFB.read(bytes, { type: "buffer" });
    const entry = zip.FileIndex.find((f: { name: string }) => f.name === "sheet1.xml");
    const xml = Buffer.from(entry!.content as Uint8Array).toString("utf8");
    expect(xml).toMatch(/<pane[^>]*ySplit="1"[^>]*state="frozen"/);
  });

  it("an empty data set is a sheet with the header row only; control characters XML cannot hold are dropped", async () => {
    const empty = readBack((await write("xlsx", { ...dataSet([]) })).bytes);
    expect(XLSX.utils.sheet_to_json(empty.Sheets.transactions!, { header: 1 })).toEqual([columns]);
    const odd = readBack((await write("xlsx", dataSet([{ id: "a\u0001b\u0000c" }]))).bytes);
    expect(odd.Sheets.transactions!.A2).toMatchObject({ v: "abc" });
  });
});

describe("JSON export", () => {
  it("streams { exportId, dataType, generatedAt, data, count } with the records as they are", async () => {
    const { bytes, rows } = await write("json", dataSet());
    expect(rows).toBe(2);
    const body = JSON.parse(bytes.toString("utf8"));
    expect(body).toEqual({ ...header, data: JSON.parse(JSON.stringify(tricky)), count: 2 });
    expect(Object.keys(body)).toEqual(["exportId", "dataType", "generatedAt", "data", "count"]);
  });

  it("an empty data set is data [] and count 0", async () => {
    const { bytes, rows } = await write("json", dataSet([]));
    expect(rows).toBe(0);
    expect(JSON.parse(bytes.toString("utf8"))).toEqual({ ...header, data: [], count: 0 });
  });
});

describe("all formats", () => {
  const endless = (pulled: { n: number }): DataSet => ({
    columns: ["id", "amount", "tradeDate", "note"],
    records: (async function* () {
      for (;;) {
        pulled.n++;
        yield { id: `t${pulled.n}`, amount: pulled.n * 1.5, tradeDate: "2024-01-02", note: "x".repeat(200) };
      }
    })(),
  });

  it.each(["csv", "xlsx", "json"] as const)(
    "%s pulls records only as fast as the file is read (backpressure)",
    async (format) => {
      const pulled = { n: 0 };
      const file = writeExport(format, header, endless(pulled));
      // Nobody reads: the writer must stop pulling once its buffers are full.
      await sleep(300); // waits to show that the writer does not pull on without a reader
      const idle = pulled.n;
      expect(idle).toBeLessThan(20_000);
      await sleep(200); // and still does not
      expect(pulled.n - idle).toBeLessThan(1_000);
      // Reading moves it on.
      let read = 0;
      for await (const chunk of file.stream) {
        read += (chunk as Buffer).length;
        if (read > 2_000_000) break;
      }
      expect(pulled.n).toBeGreaterThan(idle);
      file.stream.destroy();
    },
  );

  it.each(["csv", "xlsx", "json"] as const)(
    "%s stops reading the data set when the file is abandoned (a failed upload)",
    async (format) => {
      let closed = false;
      const pulled = { n: 0 };
      const records = (async function* () {
        try {
          for (;;) {
            pulled.n++;
            yield { id: `t${pulled.n}`, amount: pulled.n, tradeDate: "2024-01-02", note: "x".repeat(200) };
          }
        } finally {
          closed = true;
        }
      })();
      const file = writeExport(format, header, { columns: ["id", "amount", "tradeDate", "note"], records });
      for await (const _chunk of file.stream) break; // the consumer goes away after the first chunk
      file.stream.destroy();
      await expect.poll(() => closed, { timeout: 5_000, interval: 20 }).toBe(true);
      const at = pulled.n;
      await sleep(200); // waits to show that nothing more is pulled
      expect(pulled.n).toBe(at);
    },
  );

  it.each(["csv", "xlsx", "json"] as const)("%s fails the stream when the data set fails", async (format) => {
    const failing: DataSet = {
      columns: ["id"],
      records: (async function* () {
        yield { id: "a" };
        throw new Error("the store went away");
      })(),
    };
    await expect(buffer(writeExport(format, header, failing).stream)).rejects.toThrow("the store went away");
  });
});
