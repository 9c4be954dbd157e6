/**
 * The columns of each exported data type: the dotted paths of the API's record schemas, in the
 * schemas' order, with the type of each (so XLSX writes ISO dates and timestamps as dates). Arrays
 * stay one column (JSON text); nested objects become one column per field (`entity.type`).
 */
import type { z } from "zod";
import { dataQualityExceptionSchema } from "../../domain/data-quality-exception";
import { portfolioSchema } from "../../domain/portfolio";
import { priceSchema } from "../../domain/price";
import { securitySchema } from "../../domain/security";
import { transactionSchema } from "../../domain/transaction";
import type { Holding } from "../../domain/valuation/index";
import type { ColumnType, ExportDataType } from "../../domain/export-data";

export interface Columns {
  columns: string[];
  columnTypes: Record<string, ColumnType>;
}

interface ZodDef {
  type: string;
  format?: string;
  innerType?: z.ZodType;
  shape?: Record<string, z.ZodType>;
}

const defOf = (schema: z.ZodType): ZodDef => (schema as unknown as { _zod: { def: ZodDef } })._zod.def;

function typeOf(schema: z.ZodType): ColumnType | { object: Record<string, z.ZodType> } {
  let def = defOf(schema);
  while ((def.type === "nullable" || def.type === "optional" || def.type === "default") && def.innerType !== undefined)
    def = defOf(def.innerType);
  switch (def.type) {
    case "string":
      return def.format === "date" ? "date" : def.format === "datetime" ? "timestamp" : "string";
    case "number":
      return "number";
    case "boolean":
      return "boolean";
    case "object":
      return { object: def.shape ?? {} };
    case "array":
    case "record":
      return "json";
    default:
      return "string";
  }
}

/** The columns of a zod object schema, nested objects flattened with dots. */
export function columnsOfSchema(
  schema: z.ZodObject<Record<string, z.ZodType>>,
  prefix = "",
  into: Columns = { columns: [], columnTypes: {} },
): Columns {
  for (const [key, field] of Object.entries(schema.shape)) {
    const type = typeOf(field);
    const path = `${prefix}${key}`;
    if (typeof type === "object") {
      for (const [inner, innerField] of Object.entries(type.object)) {
        const innerType = typeOf(innerField);
        if (typeof innerType === "object") throw new Error(`${path}.${inner}: objects nest one level deep in exports`);
        into.columns.push(`${path}.${inner}`);
        into.columnTypes[`${path}.${inner}`] = innerType;
      }
      continue;
    }
    into.columns.push(path);
    into.columnTypes[path] = type;
  }
  return into;
}

function explicit(fields: readonly (readonly [string, ColumnType])[]): Columns {
  return { columns: fields.map(([name]) => name), columnTypes: Object.fromEntries(fields) };
}

/** A holding's fields as GET .../holdings answers them (`via` only looks through funds, which exports do not). */
const HOLDING_FIELDS = [
  ["securityId", "string"],
  ["isin", "string"],
  ["name", "string"],
  ["assetClass", "string"],
  ["quantity", "number"],
  ["price", "number"],
  ["priceDate", "date"],
  ["priceType", "string"],
  ["priceCurrency", "string"],
  ["fxRate", "number"],
  ["fxMethod", "string"],
  ["fxPivot", "string"],
  ["marketValue", "number"],
  ["weight", "number"],
  ["unvalued", "string"],
] as const satisfies readonly (readonly [Exclude<keyof Holding, "via">, ColumnType])[];

/** Which portfolio and valuation a holding or position row belongs to. */
const PORTFOLIO_FIELDS = [
  ["portfolioId", "string"],
  ["portfolioCode", "string"],
  ["date", "date"],
] as const;

export const dataSetColumns: Record<ExportDataType, Columns> = {
  portfolios: columnsOfSchema(portfolioSchema),
  holdings: explicit([...PORTFOLIO_FIELDS, ["baseCurrency", "string"], ...HOLDING_FIELDS]),
  positions: explicit([
    ...PORTFOLIO_FIELDS,
    ["securityId", "string"],
    ["quantity", "number"],
    ["costBasis", "number"],
    ["currency", "string"],
  ]),
  transactions: columnsOfSchema(transactionSchema),
  prices: columnsOfSchema(priceSchema),
  "fx-rates": explicit([
    ["baseCurrency", "string"],
    ["quoteCurrency", "string"],
    ["date", "date"],
    ["rate", "number"],
    ["source", "string"],
  ]),
  securities: columnsOfSchema(securitySchema),
  exceptions: columnsOfSchema(dataQualityExceptionSchema),
};
