import { createHash } from "node:crypto";
import { z } from "zod";
import { publicRunStatus, runStatusSchema } from "./last-run";

export const exportRunSchema = z
  .object({
    id: z.string(),
    exportId: z.string(),
    trigger: z.enum(["schedule", "manual"]),
    scheduledFor: z.iso
      .datetime()
      .meta({ description: "The scheduled time (a manual run's: when it was asked for); the naming tokens use it" }),
    status: runStatusSchema.meta({
      description: "retrying: an attempt failed (error says why) and the next is due at nextAttemptAt",
    }),
    fileName: z.string().meta({
      description:
        "The file the run writes: rendered when the run is claimed, and again by each attempt from the definition that attempt works from",
    }),
    rows: z.number().int(),
    bytes: z.number().int(),
    error: z.string().optional().meta({ description: "Why the last attempt failed (never a secret)" }),
    startedAt: z.iso.datetime(),
    completedAt: z.iso.datetime().optional(),
    attempts: z.number().int().meta({ description: "Attempts so far (at most 3)" }),
    nextAttemptAt: z.iso.datetime().optional().meta({ description: "While retrying: when the next attempt is due" }),
  })
  .meta({ id: "ExportRun" });
export type ExportRun = z.infer<typeof exportRunSchema>;

/** The stored run: the public fields plus the lease of the attempt in progress. */
export interface StoredExportRun extends Omit<ExportRun, "status"> {
  status: "running" | "succeeded" | "failed";
  /** While `running`: the attempt in progress holds the run until then; past it, the sweep hands the run to another attempt. */
  leaseUntil: string;
}

/**
 * A run's id, derived from what it runs: one id per (export, scheduled time, trigger), so two timers
 * claiming the same scheduled time write the same document and only one of them succeeds.
 */
export function exportRunId(exportId: string, scheduledFor: string, trigger: ExportRun["trigger"]): string {
  return `er_${createHash("sha256").update(`${exportId}\n${scheduledFor}\n${trigger}`).digest("hex").slice(0, 32)}`;
}

export function toPublicRun(stored: StoredExportRun): ExportRun {
  const { leaseUntil: _lease, nextAttemptAt, ...run } = stored;
  const status = publicRunStatus(stored);
  return { ...run, status, ...(status === "retrying" && nextAttemptAt !== undefined ? { nextAttemptAt } : {}) };
}
