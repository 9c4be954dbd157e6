import { createHash } from "node:crypto";
import { z } from "zod";

export const exceptionTypeSchema = z.enum(["VALIDATION_FAILED", "UNKNOWN_SECURITY", "MISSING_PRICE", "STALE_PRICE", "PRICE_JUMP", "MISSING_FX_RATE", "NAV_MISMATCH", "VALUE_OUT_OF_RANGE"]);
export const exceptionSeveritySchema = z.enum(["info", "warning", "error"]);
export const exceptionStatusSchema = z.enum(["open", "resolved"]);

export const dataExceptionSchema = z
  .object({
    id: z.string(),
    type: exceptionTypeSchema,
    severity: exceptionSeveritySchema,
    message: z.string(),
    entity: z.object({ type: z.string(), id: z.string() }),
    jobId: z.string().nullable(),
    status: exceptionStatusSchema,
    createdAt: z.iso.datetime(),
    resolvedAt: z.iso.datetime().nullable(),
  })
  .meta({ id: "DataQualityException" });
export type DataException = z.infer<typeof dataExceptionSchema>;
export type ExceptionType = z.infer<typeof exceptionTypeSchema>;

/** A condition seen by valuation or import; its key makes the same condition open one exception only. */
export interface ExceptionCandidate {
  key: string;
  type: ExceptionType;
  severity: z.infer<typeof exceptionSeveritySchema>;
  message: string;
  entity: { type: string; id: string };
}

export const exceptionIdOf = (key: string): string => `exc_${createHash("sha256").update(key).digest("hex").slice(0, 24)}`;
