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

/**
 * decimal(precision, scale); `of` names the kind of number (money, quantity, …). `nonZero`: 0 is never
 * a true value of this kind (a price, a rate), so a non-zero value too small for the scale is refused
 * rather than shown as 0.
 */
export interface DecimalType {
  kind: "decimal";
  precision: 38;
  scale: number;
  of: string;
  nonZero?: true;
}

export interface ColumnDefinition {
  name: string;
  type: ColumnType;
  nullable: boolean;
  description: string;
}

/** A foreign key of the same schema: declared for BI tools to join by, not enforced (see replica-migration). */
export interface ForeignKey {
  columns: readonly string[];
  references: { table: string; columns: readonly string[] };
}

export interface TableDefinition {
  schema: "analytics" | "replica";
  name: string;
  description: string;
  columns: readonly ColumnDefinition[];
  primaryKey: readonly string[];
  foreignKeys?: readonly ForeignKey[];
}

export const text = (length: number): ColumnType => ({ kind: "text", length });
const decimal = (scale: number, of: string, nonZero = false): DecimalType => ({
  kind: "decimal",
  precision: 38,
  scale,
  of,
  ...(nonZero ? { nonZero: true as const } : {}),
});

/**
 * decimal(38, s) per kind of number: s places, 38 − s digits before the point. The places are what the
 * data has: prices and FX rates at most 12 (the API refuses more), money 8 (a currency has at most 4
 * minor units; the service's own amounts are rounded to them), quantities 12. Fewer places would round
 * what the API shows; more only print as trailing zeros. Precision stays 38 (the integer digits only
 * grow as the places shrink, so a migration from wider places never overflows).
 */
export const numberKinds = {
  money: decimal(8, "money"),
  quantity: decimal(12, "quantity"),
  price: decimal(12, "price", true),
  rate: decimal(12, "FX rate", true),
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
