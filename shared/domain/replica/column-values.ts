/**
 * A document's values as the replica's columns hold them: numbers as exact decimal text (the API's
 * number as it prints, never a float), dates as `YYYY-MM-DD`, timestamps as ISO 8601 UTC, text within
 * its column's length. A value a column cannot hold makes the document unprojectable (the projection
 * skips it with an exception), never silently mangled: the same on both engines, so that a value fits
 * both or neither.
 */
import Decimal from "decimal.js";
import type { ColumnDefinition, DecimalType, TableDefinition } from "./table-types";

/** One column value handed to a database driver. */
export type ColumnValue = string | number | null;
export type Row = Record<string, ColumnValue>;

const Exact = Decimal.clone({ precision: 100, rounding: Decimal.ROUND_HALF_EVEN, toExpNeg: -100, toExpPos: 100 });

/** A number's shortest decimal text in plain notation: sign, integer digits, fraction digits. */
const PLAIN = /^-?(\d+)(?:\.(\d+))?$/;

/** A number as decimal(precision, scale) text; `undefined` when it is beyond the column's range. */
export function decimalText(n: number, type: DecimalType): { text: string; rounded: boolean } | undefined {
  if (!Number.isFinite(n)) return undefined;
  // String(n) is the shortest text that reads back as the same double: the API's JSON number.
  const text = String(n);
  // Most numbers fit as they print (no exponent, no more fraction digits than the scale): that text is
  // the exact decimal already. The rest are rounded and range-checked exactly.
  const plain = PLAIN.exec(text);
  if (plain !== null) {
    const integer = plain[1] ?? "";
    const integerDigits = integer === "0" ? 0 : integer.length;
    if ((plain[2]?.length ?? 0) <= type.scale && integerDigits <= type.precision - type.scale)
      return { text, rounded: false };
  }
  const exact = new Exact(text);
  const fitted = exact.toDecimalPlaces(type.scale, Decimal.ROUND_HALF_EVEN);
  if (fitted.abs().gte(new Exact(10).pow(type.precision - type.scale))) return undefined;
  return { text: fitted.isZero() ? "0" : fitted.toFixed(), rounded: !fitted.eq(exact) };
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
/**
 * NUL, which PostgreSQL's text cannot hold (SQL Server's can), and an unpaired surrogate, which
 * PostgreSQL's driver would turn into U+FFFD (SQL Server's keeps it): refused on both engines alike.
 */
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/** A cheap first look (a backfill checks millions of strings): most hold neither NUL nor any surrogate. */
const SUSPECT = /[\u0000\uD800-\uDFFF]/;

/** Why a row could not be built (a document the projection cannot read). */
export class UnprojectableValue extends Error {
  override readonly name = "UnprojectableValue";
}

/** A value for one column, or a warning when it had to be adapted (rounded, shortened, out of range). */
function columnValue(column: ColumnDefinition, value: unknown, warn: (message: string) => void): ColumnValue {
  if (value === undefined || value === null) {
    if (column.nullable) return null;
    throw new UnprojectableValue(`${column.name} is missing`);
  }
  const type = column.type;
  switch (type.kind) {
    case "text":
    case "long-text": {
      if (typeof value !== "string") throw new UnprojectableValue(`${column.name} is not text`);
      if (SUSPECT.test(value) && UNSTORABLE.test(value))
        throw new UnprojectableValue(`${column.name} holds a NUL character or an unpaired surrogate`);
      if (type.kind === "text" && value.length > type.length) {
        warn(`${column.name} shortened to ${type.length} characters`);
        return value.slice(0, type.length);
      }
      return value;
    }
    case "decimal": {
      if (typeof value !== "number") throw new UnprojectableValue(`${column.name} is not a number`);
      const fitted = decimalText(value, type);
      // Null would read as "no value" (a holding that could not be valued): not what the document says.
      if (fitted === undefined)
        throw new UnprojectableValue(`${column.name} ${value} is beyond decimal(${type.precision}, ${type.scale})`);
      if (fitted.rounded && type.nonZero === true && fitted.text === "0")
        throw new UnprojectableValue(
          `${column.name} ${value} has more than ${type.scale} decimal places and would read as 0`,
        );
      if (fitted.rounded) warn(`${column.name} ${value} rounded to ${type.scale} places`);
      return fitted.text;
    }
    case "binary":
      throw new UnprojectableValue(`${column.name} is bookkeeping, not a document's field`);
    case "integer":
      if (typeof value !== "number" || !Number.isSafeInteger(value))
        throw new UnprojectableValue(`${column.name} is not a whole number`);
      return value;
    case "date":
      if (typeof value !== "string" || !DATE.test(value)) throw new UnprojectableValue(`${column.name} is not a date`);
      return value;
    case "boolean":
      if (typeof value !== "boolean") throw new UnprojectableValue(`${column.name} is not true or false`);
      // 1 or 0: what SQL Server's bit takes, and text PostgreSQL's boolean reads.
      return value ? 1 : 0;
    case "timestamp": {
      const ms = typeof value === "string" ? Date.parse(value) : NaN;
      if (Number.isNaN(ms)) throw new UnprojectableValue(`${column.name} is not a timestamp`);
      return new Date(ms).toISOString();
    }
  }
}

/** A row of `table` from values named by column; every column is present, in the table's order. */
export function rowOf(table: TableDefinition, values: Record<string, unknown>, warn: (message: string) => void): Row {
  const row: Row = {};
  try {
    for (const column of table.columns)
      row[column.name] = columnValue(column, values[column.name], (m) => warn(`${table.name}.${m}`));
  } catch (error) {
    if (error instanceof UnprojectableValue) throw new UnprojectableValue(`${table.name}.${error.message}`);
    throw error;
  }
  return row;
}
