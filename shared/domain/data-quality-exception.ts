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
    resolvedBy: z.string().nullable().meta({
      description:
        "Who resolved it: the API client id of the person who did, or `system` when a revaluation no longer found its cause. Null while open",
    }),
    resolution: z.string().nullable().meta({ description: "Why it was resolved, when that was said. Null while open" }),
  })
  .meta({ id: "DataQualityException" });
export type DataQualityException = z.infer<typeof dataQualityExceptionSchema>;
export type DataQualityExceptionType = z.infer<typeof dataQualityTypeSchema>;

/** Who resolves an exception whose cause a revaluation no longer finds. */
export const SYSTEM_RESOLVER = "system";

/**
 * The exceptions a valuation opens that follow their cause: one per portfolio-date (and security or
 * currency pair), resolved by the service when a revaluation of that portfolio-date no longer finds it.
 */
export const followedTypes: readonly DataQualityExceptionType[] = ["MISSING_PRICE", "STALE_PRICE", "MISSING_FX_RATE"];

/** A condition seen by valuation or import; its key makes the same condition open one exception only. */
export interface DataQualityCandidate {
  key: string;
  type: DataQualityExceptionType;
  severity: z.infer<typeof dataQualitySeveritySchema>;
  message: string;
  entity: { type: string; id: string };
  /** The portfolio-date whose valuation found it (the exceptions that follow their cause). */
  foundIn?: { portfolioId: string; date: string };
}

export const dataQualityExceptionIdOf = (key: string): string =>
  `exc_${createHash("sha256").update(key).digest("hex").slice(0, 24)}`;
