import { FileFormatError } from "../domain/source-record";

/** What one XML part of a zip may hold, checked on its inflated bytes before any parser sees them. */
export interface XmlPartLimits {
  /** Elements in the whole part: a part a parser keeps in memory (shared strings, styles) holds an object per element or so. */
  maxElements?: number;
  /** Cells (`<c>`) in one row (`<row>`): a streamed sheet holds a whole row at once. */
  maxRowCells?: number;
  /** Bytes without a `<`: the longest text (a cell's, a shared string's) or tag a parser must hold. */
  maxTextRunBytes: number;
}

const LT = 0x3c;
/** Enough bytes after `<` to tell `row` and `c` from any other name, prefix included. */
const NAME_WINDOW = 16;
const isNameEnd = (byte: number): boolean =>
  byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d || byte === 0x3e || byte === 0x2f;

/**
 * Counts, as a part's bytes stream past, what its parser would have to hold: elements, cells per row,
 * and the longest stretch without markup. It jumps from `<` to `<` (Buffer.indexOf), so it costs little
 * next to inflating. Comments and CDATA are counted as markup, which can only make it stricter.
 */
export class XmlPartScan {
  private elements = 0;
  private rowCells = 0;
  private run = 0;
  /** The bytes from a `<` whose name the last chunk cut off. */
  private pending: Buffer = Buffer.alloc(0);

  constructor(
    private readonly part: string,
    private readonly limits: XmlPartLimits,
  ) {}

  write(chunk: Buffer): void {
    const bytes = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    this.pending = Buffer.alloc(0);
    let position = 0;
    for (;;) {
      const lt = bytes.indexOf(LT, position);
      this.stretch((lt < 0 ? bytes.length : lt) - position);
      if (lt < 0) return;
      this.run = 0;
      let end = lt + 1;
      while (end < bytes.length && end - lt <= NAME_WINDOW && !isNameEnd(bytes[end] ?? 0)) end += 1;
      if (end === bytes.length && end - lt <= NAME_WINDOW) {
        this.pending = bytes.subarray(lt);
        return;
      }
      this.tag(bytes.toString("latin1", lt + 1, end));
      position = lt + 1;
    }
  }

  private stretch(length: number): void {
    this.run += length;
    if (this.run > this.limits.maxTextRunBytes) {
      throw new FileFormatError(
        `The workbook part ${this.part} has a text or tag longer than ${this.limits.maxTextRunBytes} bytes (Excel holds at most 32,767 characters in a cell)`,
      );
    }
  }

  private tag(name: string): void {
    if (name === "" || name.startsWith("/") || name.startsWith("?") || name.startsWith("!")) return;
    this.elements += 1;
    if (this.limits.maxElements !== undefined && this.elements > this.limits.maxElements) {
      const strings = this.part.endsWith("sharedStrings.xml")
        ? ` (about ${Math.floor(this.limits.maxElements / 2)} distinct texts)`
        : "";
      throw new FileFormatError(
        `The workbook part ${this.part} has more than ${this.limits.maxElements} XML elements${strings}; the service holds this part in memory whole and reads it only up to that size: split the workbook, or send the data as CSV`,
      );
    }
    if (this.limits.maxRowCells === undefined) return;
    const local = name.slice(name.indexOf(":") + 1);
    if (local === "row") this.rowCells = 0;
    else if (local === "c" && ++this.rowCells > this.limits.maxRowCells) {
      throw new FileFormatError(
        `The workbook part ${this.part} has a row of more than ${this.limits.maxRowCells} cells (Excel's column limit)`,
      );
    }
  }
}
