import { crc32, deflateRawSync } from "node:zlib";

/**
 * Workbooks made to stress a reader: the parts exceljs needs (workbook, its relationships, one sheet,
 * shared strings), deflated into a plain zip written here, so a test says exactly what is inside.
 */
export function workbook(parts: { sheet: string; sharedStrings?: string | Buffer }): Buffer {
  const entries: [string, Buffer][] = [
    [
      "[Content_Types].xml",
      Buffer.from(
        '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/></Types>',
      ),
    ],
    [
      "_rels/.rels",
      Buffer.from(
        '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>',
      ),
    ],
    [
      "xl/workbook.xml",
      Buffer.from(
        '<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>',
      ),
    ],
    [
      "xl/_rels/workbook.xml.rels",
      Buffer.from(
        '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.xml"/></Relationships>',
      ),
    ],
    [
      "xl/worksheets/sheet1.xml",
      Buffer.from(
        `<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>${parts.sheet}</sheetData></worksheet>`,
      ),
    ],
  ];
  if (parts.sharedStrings !== undefined)
    entries.push([
      "xl/sharedStrings.xml",
      Buffer.isBuffer(parts.sharedStrings) ? parts.sharedStrings : Buffer.from(parts.sharedStrings),
    ]);
  return zip(entries);
}

/** Shared strings `<si><t>…</t></si>` for `count` distinct texts made by `text`, in the `<sst>` root. */
export function sharedStrings(count: number, text: (i: number) => string = (i) => `s${i}`): Buffer {
  const pieces: string[] = [
    '<?xml version="1.0" encoding="UTF-8"?><sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">',
  ];
  for (let i = 0; i < count; i += 1) pieces.push(`<si><t>${text(i)}</t></si>`);
  pieces.push("</sst>");
  return Buffer.from(pieces.join(""));
}

/** A header row (ISIN, Name) and data rows of shared-string cells pointing at strings 0, 1, 2, … */
export function sharedStringRows(rows: number): string {
  const out: string[] = [];
  for (let r = 1; r <= rows; r += 1)
    out.push(
      `<row r="${r}"><c r="A${r}" t="s"><v>${2 * (r - 1)}</v></c><c r="B${r}" t="s"><v>${2 * (r - 1) + 1}</v></c></row>`,
    );
  return out.join("");
}

function zip(entries: [string, Buffer][]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const [fileName, data] of entries) {
    const name = Buffer.from(fileName);
    const body = deflateRawSync(data);
    const fields = (header: Buffer, at: number) => {
      header.writeUInt16LE(8, at);
      header.writeUInt32LE(crc32(data), at + 6);
      header.writeUInt32LE(body.length, at + 10);
      header.writeUInt32LE(data.length, at + 14);
      header.writeUInt16LE(name.length, at + 18);
    };
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    fields(local, 8);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    fields(central, 10);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, body);
    centrals.push(central, name);
    offset += local.length + name.length + body.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}
