/**
 * How the replica's tables are described: one definition gives the DDL of both engines, the README's
 * table reference and the projection's rows, so they cannot drift apart.
 */

/** How a column is stored; the same precision on both engines, so a value fits both or neither. */
export type ColumnType =
  | { kind: "text"; length: number }
  | { kind: "long-text" }
  | { kind: "binary"; length: number }
  | DecimalType
  | { kind: "date" }
  | { kind: "timestamp" }
  | { kind: "integer" }
  | { kind: "boolean" };

/** decimal(precision, scale); `of` names the kind of number (money, quantity, …). */
export interface DecimalType {
  kind: "decimal";
  precision: 38;
  scale: number;
  of: string;
}

export interface ColumnDefinition {
  name: string;
  type: ColumnType;
  nullable: boolean;
  description: string;
}

export interface TableDefinition {
  schema: "analytics" | "replica";
  name: string;
  description: string;
  columns: readonly ColumnDefinition[];
  primaryKey: readonly string[];
}

export const text = (length: number): ColumnType => ({ kind: "text", length });
const decimal = (scale: number, of: string): DecimalType => ({ kind: "decimal", precision: 38, scale, of });

/** decimal(38, s) per kind of number: s places, 38 − s digits before the point. */
export const numberKinds = {
  money: decimal(12, "money"),
  quantity: decimal(20, "quantity"),
  price: decimal(28, "price"),
  rate: decimal(26, "FX rate"),
  /** Valuation rounds the FX rate it used to 10 places; a cross rate can reach 1e18. */
  usedRate: decimal(10, "FX rate"),
  /** Valuation rounds weights to 8 places. */
  weight: decimal(8, "weight"),
} as const;

export const ID = text(200);
export const CURRENCY = text(3);

export const col = (name: string, type: ColumnType, description: string, nullable = false): ColumnDefinition => ({
  name,
  type,
  nullable,
  description,
});
export const optional = (name: string, type: ColumnType, description: string): ColumnDefinition =>
  col(name, type, description, true);

/** `schema.table`, as every statement names it. */
export const qualified = (table: Pick<TableDefinition, "schema" | "name">): string => `${table.schema}.${table.name}`;
