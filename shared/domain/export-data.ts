/** What an export writes: its data types, formats, filters and the columns of its files. */

export const exportDataTypes = [
  "portfolios",
  "holdings",
  "positions",
  "transactions",
  "prices",
  "fx-rates",
  "securities",
  "exceptions",
] as const;
export type ExportDataType = (typeof exportDataTypes)[number];

export const exportFormats = ["csv", "xlsx", "json"] as const;
export type ExportFormat = (typeof exportFormats)[number];

/** An export's `filters` (API.md): every field optional. */
export interface ExportFilters {
  portfolioIds?: string[];
  clientId?: string;
  status?: string;
}

/** The dates a `period` filter selects, inclusive ISO dates (`yyyy-MM-dd`); absent means all. */
export interface DateWindow {
  from: string;
  to: string;
}

/** `date` is an ISO date `yyyy-MM-dd`, `timestamp` an ISO date-time; `json` an array or object written as JSON text. */
export type ColumnType = "string" | "number" | "boolean" | "date" | "timestamp" | "json";
