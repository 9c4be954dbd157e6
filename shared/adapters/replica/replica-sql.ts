/**
 * What differs between the replica's two engines, in one place: column types, how a timestamp is
 * sent, and the clause a MERGE returns its keys with. Everything else is the same Kysely statement.
 */
import { sql, type Kysely, type RawBuilder } from "kysely";
import type { ColumnValue } from "../../domain/replica/column-values";
import type { ColumnType } from "../../domain/replica/table-types";

export type ReplicaEngine = "postgres" | "sqlserver";

/** A value a statement sends: the projection's, or the bookkeeping's binary keys. */
export type SqlValue = ColumnValue | Buffer;

/** The replica's tables to Kysely: `schema.table` → column → value (the definitions carry the types). */
export type ReplicaDatabase = Record<string, Record<string, SqlValue>>;
export type ReplicaDb = Kysely<ReplicaDatabase>;

/**
 * What one statement may carry: SQL Server takes at most 2,100 parameters (kept under 2,000) and 1,000
 * rows in one INSERT … VALUES; PostgreSQL takes 65,535 parameters, so its batches are larger (fewer
 * round trips for a backfill).
 */
export const statementLimits: Record<ReplicaEngine, { parameters: number; rows: number }> = {
  sqlserver: { parameters: 2000, rows: 1000 },
  postgres: { parameters: 20_000, rows: 5000 },
};

/** The column type of each engine, as SQL text: the same precision and length, so a value fits both or neither. */
export function columnTypeText(engine: ReplicaEngine, type: ColumnType): string {
  switch (type.kind) {
    case "text":
      return engine === "sqlserver" ? `nvarchar(${type.length})` : `varchar(${type.length})`;
    case "long-text":
      return engine === "sqlserver" ? "nvarchar(max)" : "text";
    case "binary":
      return engine === "sqlserver" ? `binary(${type.length})` : "bytea";
    case "decimal":
      return `decimal(${type.precision}, ${type.scale})`;
    case "date":
      return "date";
    case "timestamp":
      // SQL Server has no time zone type that BI tools read well: datetime2 holding UTC.
      return engine === "sqlserver" ? "datetime2(3)" : "timestamptz";
    case "integer":
      return "bigint";
    case "boolean":
      return engine === "sqlserver" ? "bit" : "boolean";
  }
}

export const columnSql = (engine: ReplicaEngine, type: ColumnType): RawBuilder<unknown> =>
  sql.raw(columnTypeText(engine, type));

/**
 * A value as the driver sends it: ISO 8601 timestamps lose their `Z` for SQL Server, whose datetime2
 * takes `YYYY-MM-DDThh:mm:ss.fff` (already UTC); everything else is sent as the projection made it
 * (numbers as decimal text, converted by the column's type on both engines).
 */
export function parameterValue(engine: ReplicaEngine, type: ColumnType, value: SqlValue): SqlValue {
  if (engine === "sqlserver" && type.kind === "timestamp" && typeof value === "string" && value.endsWith("Z"))
    return value.slice(0, -1);
  return value;
}
