/**
 * What differs between the replica's two engines, in one place: column types, how a timestamp is
 * sent, and the clause a MERGE returns its keys with. Everything else is the same Kysely statement.
 */
import { sql, type Kysely, type RawBuilder } from "kysely";
import type { ColumnValue } from "../../domain/replica/column-values";
import type { ColumnType } from "../../domain/replica/table-types";

export type ReplicaEngine = "postgres" | "sqlserver";

/** The replica's tables to Kysely: `schema.table` → column → value (the definitions carry the types). */
export type ReplicaDatabase = Record<string, Record<string, ColumnValue>>;
export type ReplicaDb = Kysely<ReplicaDatabase>;

/**
 * SQL Server's limit is 2,100 parameters a statement; statements stay under 2,000 on both engines so
 * that a batch is split the same way wherever it runs.
 */
export const MAX_PARAMETERS = 2000;
/** SQL Server's limit on rows in one INSERT … VALUES. */
export const MAX_INSERT_ROWS = 1000;

/** The column type of each engine, as SQL text: the same precision and length, so a value fits both or neither. */
export function columnTypeText(engine: ReplicaEngine, type: ColumnType): string {
  switch (type.kind) {
    case "text":
      return engine === "sqlserver" ? `nvarchar(${type.length})` : `varchar(${type.length})`;
    case "long-text":
      return engine === "sqlserver" ? "nvarchar(max)" : "text";
    case "decimal":
      return `decimal(${type.precision}, ${type.scale})`;
    case "date":
      return "date";
    case "timestamp":
      // SQL Server has no time zone type that BI tools read well: datetime2 holding UTC.
      return engine === "sqlserver" ? "datetime2(3)" : "timestamptz";
    case "integer":
      return "bigint";
  }
}

export const columnSql = (engine: ReplicaEngine, type: ColumnType): RawBuilder<unknown> =>
  sql.raw(columnTypeText(engine, type));

/**
 * A value as the driver sends it: ISO 8601 timestamps lose their `Z` for SQL Server, whose datetime2
 * takes `YYYY-MM-DDThh:mm:ss.fff` (already UTC); everything else is sent as the projection made it
 * (numbers as decimal text, converted by the column's type on both engines).
 */
export function parameterValue(engine: ReplicaEngine, type: ColumnType, value: ColumnValue): ColumnValue {
  if (engine === "sqlserver" && type.kind === "timestamp" && typeof value === "string" && value.endsWith("Z"))
    return value.slice(0, -1);
  return value;
}
