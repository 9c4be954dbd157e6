import { z } from "zod";
import type { Job } from "./job";

/** A run's status as answered: `retrying` is a running run whose last attempt failed and whose next one is due at `nextAttemptAt`. */
export const runStatusSchema = z.enum(["running", "retrying", "succeeded", "failed"]);
export type RunStatus = z.infer<typeof runStatusSchema>;

/** What every run of the `runs` container has that its status depends on. */
interface RunState {
  status: "running" | "succeeded" | "failed";
  nextAttemptAt?: string;
}

/** The status a stored run is answered with. */
export const publicRunStatus = (run: RunState): RunStatus =>
  run.status === "running" && run.nextAttemptAt !== undefined ? "retrying" : run.status;

export const lastRunSchema = z
  .object({
    id: z.string(),
    status: runStatusSchema,
    scheduledFor: z.iso.datetime(),
    startedAt: z.iso.datetime(),
    completedAt: z.iso.datetime().optional(),
    error: z
      .string()
      .optional()
      .meta({ description: "Why it failed (or why the last attempt failed, while retrying)" }),
    nextAttemptAt: z.iso.datetime().optional().meta({ description: "While retrying: when the next attempt is due" }),
  })
  .meta({
    id: "LastRun",
    description: "The newest run (by scheduled time for exports, start for blob sources); null when it never ran",
  });
export type LastRun = z.infer<typeof lastRunSchema>;

/** The summary of a run that a list shows. */
export function lastRunOf(run: {
  id: string;
  status: RunState["status"];
  nextAttemptAt?: string;
  scheduledFor: string;
  startedAt: string;
  completedAt?: string;
  error?: string;
}): LastRun {
  const status = publicRunStatus(run);
  return {
    id: run.id,
    status,
    scheduledFor: run.scheduledFor,
    startedAt: run.startedAt,
    ...(run.completedAt !== undefined ? { completedAt: run.completedAt } : {}),
    ...(run.error !== undefined && status !== "succeeded" ? { error: run.error } : {}),
    ...(status === "retrying" && run.nextAttemptAt !== undefined ? { nextAttemptAt: run.nextAttemptAt } : {}),
  };
}

export const lastJobSchema = z
  .object({
    id: z.string(),
    status: z.enum(["running", "completed", "failed"]),
    fileName: z.string().nullable(),
    startedAt: z.iso.datetime(),
    completedAt: z.iso.datetime().nullable(),
    duplicateOf: z.string().optional(),
    error: z.string().optional().meta({ description: "A failed job's first error" }),
  })
  .meta({ id: "LastJob", description: "The feed's newest job (its last file); null before its first file" });
export type LastJob = z.infer<typeof lastJobSchema>;

export function lastJobOf(job: Job): LastJob {
  const first = job.errors.find((e) => e.message !== "");
  return {
    id: job.id,
    status: job.status,
    fileName: job.fileName,
    startedAt: job.startedAt,
    completedAt: job.completedAt,
    ...(job.duplicateOf !== undefined ? { duplicateOf: job.duplicateOf } : {}),
    ...(job.status === "failed" && first !== undefined
      ? { error: first.field !== "" && first.field !== "file" ? `${first.field}: ${first.message}` : first.message }
      : {}),
  };
}
