import { z } from "zod";
import { fxRateImportSchema } from "./fx-rate";
import { positionImportSchema } from "./position";
import { priceImportSchema } from "./price";
import { securityImportSchema } from "./security";
import { transactionImportSchema } from "./transaction";

export const MAX_IMPORT_RECORDS = 10_000;
export const MAX_IMPORT_BYTES = 10 * 1024 * 1024;

export const dataTypes = ["positions", "transactions", "prices", "fx-rates", "securities"] as const;
export const dataTypeSchema = z
  .enum(dataTypes)
  .meta({ description: "positions, transactions, prices, fx-rates or securities" });
export type DataType = z.infer<typeof dataTypeSchema>;

/** The payload key of each data type: `{ "<dataType-in-camelCase>": [records] }`. */
export const payloadKey = {
  positions: "positions",
  transactions: "transactions",
  prices: "prices",
  "fx-rates": "fxRates",
  securities: "securities",
} as const satisfies Record<DataType, string>;

export const recordSchemas = {
  positions: positionImportSchema,
  transactions: transactionImportSchema,
  prices: priceImportSchema,
  "fx-rates": fxRateImportSchema,
  securities: securityImportSchema,
} as const;

/** The documented body of each import (for OpenAPI); validation runs record by record for exact `field` paths. */
export function importBodySchema(dataType: DataType): z.ZodType {
  return z
    .strictObject({ [payloadKey[dataType]]: z.array(recordSchemas[dataType]).min(1).max(MAX_IMPORT_RECORDS) })
    .meta({ id: `Import_${payloadKey[dataType]}` });
}

export const importResultSchema = z
  .object({
    jobId: z.string(),
    dataType: dataTypeSchema,
    received: z.number().int(),
    created: z.number().int(),
    updated: z.number().int(),
    unchanged: z.number().int(),
    removed: z.number().int().meta({
      description: "Positions the replaced snapshots no longer have (removed from them); 0 for other data types",
    }),
  })
  .meta({ id: "ImportResult" });
export type ImportResult = z.infer<typeof importResultSchema>;
