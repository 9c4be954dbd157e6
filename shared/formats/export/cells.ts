/**
 * A record's cells for the flat formats (CSV, XLSX): one per column, the column a dotted path into
 * the record. Arrays and objects left at a column are JSON text; null and undefined are empty.
 */
export type Cell = string | number | boolean | null;

/** Reads each column's value from a record, in column order. */
export type CellReader = (record: Record<string, unknown>) => unknown[];

export function cellReader(columns: readonly string[]): CellReader {
  const paths = columns.map((c) => c.split("."));
  return (record) =>
    paths.map((path) => {
      let value: unknown = record;
      for (const key of path) {
        if (value === null || typeof value !== "object") return undefined;
        value = (value as Record<string, unknown>)[key];
      }
      return value;
    });
}

/** A raw value as a flat cell: null/undefined empty, arrays and objects JSON text, everything else as it is. */
export function flatCell(value: unknown): Cell {
  if (value === null || value === undefined) return null;
  if (typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  if (typeof value === "bigint") return value.toString();
  if (value instanceof Date) return value.toISOString();
  return JSON.stringify(value);
}
