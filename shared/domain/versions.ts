import { z } from "zod";
import { AppError } from "./errors";

/**
 * Who and what wrote a version (API.md, "Time travel"): the API client id, `feed:<feedId>`,
 * `blob-source:<id>` or `system`; the request or trace that did it; the job, when one did.
 */
export interface WriteContext {
  recordedBy: string;
  requestId: string | null;
  jobId: string | null;
  /** A change made through System Settings (`/api/v1/settings/**`): its settings writes are audited. */
  audited?: boolean;
}

export const systemWriter: WriteContext = { recordedBy: "system", requestId: null, jobId: null };

export type VersionChange = "created" | "updated" | "deleted";

/** One version of a record: its number, when the service recorded it (its own clock, ms), who and why. */
export interface RecordVersion {
  version: number;
  recordedAt: string;
  recordedBy: string;
  requestId: string | null;
  jobId: string | null;
  change: VersionChange;
}

/** A record as it read right after one of its versions (absent for a deletion). */
export interface HistoryEntry<T> extends RecordVersion {
  record?: T;
}

/**
 * When a record stored before versions existed counts as recorded: it has no metadata of its own, so
 * it reads as version 1, known from the beginning.
 */
export const BEFORE_VERSIONS = "1970-01-01T00:00:00.000Z";

export const asAtQuery = z.iso
  .datetime({ offset: true, message: "must be an ISO 8601 timestamp with Z or an offset" })
  .optional()
  .meta({
    description:
      "Answer as the service knew the data at this instant (ISO 8601 with Z or an offset, not in the future): the same records, values, order and totals the same request answered then",
    example: "2024-03-28T17:00:00Z",
  });

/** The instant an `asAt` query names, in UTC with milliseconds; 400 naming `asAt` when it is in the future. */
export function resolveAsAt(raw: string | undefined, now: Date): string | undefined {
  if (raw === undefined) return undefined;
  const ms = Date.parse(raw);
  if (Number.isNaN(ms))
    throw new AppError("INVALID_REQUEST", "Invalid query parameter", {
      details: [{ field: "asAt", message: "must be an ISO 8601 timestamp with Z or an offset" }],
    });
  if (ms > now.getTime())
    throw new AppError("INVALID_REQUEST", "asAt is in the future", {
      details: [{ field: "asAt", message: `must not be later than now (${now.toISOString()})` }],
    });
  return new Date(ms).toISOString();
}

export const recordVersionShape = {
  version: z.number().int().meta({ description: "1, 2, … per record" }),
  recordedAt: z.iso.datetime().meta({ description: "When the service recorded this version (its own clock, UTC, ms)" }),
  recordedBy: z.string().meta({
    description: "The API client id; feed:<feedId> or blob-source:<id> for files; system for valuation",
  }),
  requestId: z.string().nullable().meta({ description: "The request's X-Request-Id (a file's: its trace id)" }),
  jobId: z.string().nullable().meta({ description: "The refresh job that wrote it, if a job did" }),
  change: z.enum(["created", "updated", "deleted"]),
};

/** `{ data: [ history entries of `record` ], pagination }`. */
export const historyEntrySchema = <S extends z.ZodType>(record: S, id: string) =>
  z
    .object({
      ...recordVersionShape,
      record: record
        .optional()
        .meta({ description: "The record as the single read showed it right after this version" }),
    })
    .meta({ id });
