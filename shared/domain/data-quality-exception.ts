import { createHash } from "node:crypto";
import { z } from "zod";

export const dataQualityTypeSchema = z.enum([
  "VALIDATION_FAILED",
  "UNKNOWN_SECURITY",
  "MISSING_PRICE",
  "STALE_PRICE",
  "PRICE_JUMP",
  "MISSING_FX_RATE",
  "NAV_MISMATCH",
  "VALUE_OUT_OF_RANGE",
  "REPLICA_REJECTED",
]);
export const dataQualitySeveritySchema = z.enum(["info", "warning", "error"]);
export const dataQualityStatusSchema = z.enum(["open", "resolved"]);

export const dataQualityExceptionSchema = z
  .object({
    id: z.string(),
    type: dataQualityTypeSchema,
    severity: dataQualitySeveritySchema,
    message: z.string(),
    entity: z.object({ type: z.string(), id: z.string() }),
    jobId: z.string().nullable(),
    status: dataQualityStatusSchema,
    createdAt: z.iso.datetime(),
    resolvedAt: z.iso.datetime().nullable(),
  })
  .meta({ id: "DataQualityException" });
export type DataQualityException = z.infer<typeof dataQualityExceptionSchema>;
export type DataQualityExceptionType = z.infer<typeof dataQualityTypeSchema>;

/** A condition seen by valuation or import; its key makes the same condition open one exception only. */
export interface DataQualityCandidate {
  key: string;
  type: DataQualityExceptionType;
  severity: z.infer<typeof dataQualitySeveritySchema>;
  message: string;
  entity: { type: string; id: string };
}

export const dataQualityExceptionIdOf = (key: string): string =>
  `exc_${createHash("sha256").update(key).digest("hex").slice(0, 24)}`;
