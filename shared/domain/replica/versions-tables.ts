/**
 * The replica's version tables (API.md, "Time travel"): beside each of these `analytics` tables, a
 * `<name>_versions` table with the same columns and when each version was current, so that
 * `WHERE recorded_from <= T AND (recorded_to IS NULL OR recorded_to > T)` gives, row for row, what the
 * API answers with `asAt=T`.
 */
import { analyticsTables, type AnalyticsTableName } from "./analytics-tables";
import { col, optional, text, type ColumnDefinition, type TableDefinition } from "./table-types";

/** The tables whose records have versions, and the kind of record the `versions` container calls them. */
export const versionedTables = {
  portfolios: "portfolio",
  securities: "security",
  prices: "price",
  fx_rates: "fx",
  positions: "snapshot",
  transactions: "transaction",
} as const satisfies Partial<Record<AnalyticsTableName, string>>;
export type VersionedTableName = keyof typeof versionedTables;

const versionColumns: readonly ColumnDefinition[] = [
  col("version", { kind: "integer" }, "The version: 1, 2, … per record (positions: per portfolio-date snapshot)"),
  col("recorded_from", { kind: "timestamp" }, "When the service recorded this version (UTC, milliseconds)"),
  optional("recorded_to", { kind: "timestamp" }, "When the next version replaced it (UTC); null while it is current"),
  col("recorded_by", text(200), "Who recorded it: the API client id, feed:<feedId>, blob-source:<id> or system"),
];

export const versionTables: readonly TableDefinition[] = (Object.keys(versionedTables) as VersionedTableName[]).map(
  (name) => {
    const base = analyticsTables.find((t) => t.name === name) as TableDefinition;
    return {
      schema: "analytics",
      name: `${name}_versions`,
      description: `Every version of \`${name}\`, current (recorded_to null) and replaced: the rows current at an instant T are those with recorded_from <= T and (recorded_to is null or recorded_to > T)`,
      primaryKey: [...base.primaryKey, "version"],
      columns: [...base.columns, ...versionColumns],
      // A version names the same portfolio or security as its record (declared for BI tools, not enforced).
      ...(base.foreignKeys !== undefined ? { foreignKeys: base.foreignKeys } : {}),
    };
  },
);

/** The `<name>_versions` table of a versioned table. */
export const versionsOf = (name: VersionedTableName): TableDefinition =>
  versionTables.find((t) => t.name === `${name}_versions`) as TableDefinition;

/** Every table BI users read: the current tables, then the version tables. */
export const biTables: readonly TableDefinition[] = [...analyticsTables, ...versionTables];
