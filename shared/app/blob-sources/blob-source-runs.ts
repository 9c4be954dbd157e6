import { z } from "zod";
import { nextRunAfter, type BlobSource } from "../../domain/blob-source";
import { scheduledRunId, type BlobSourceRun } from "../../domain/blob-source-run";
import type { StoredBlobSourceRun } from "../../ports/blob-sources";
import { MAX_RUN_ATTEMPTS, type RunClaim, type RunKind } from "../scheduled-runs/run-kind";
import type { RunSchedule } from "../scheduled-runs/scheduled-runs";

/** The `blob-sources` queue message: one run to perform. */
export const blobSourceMessageSchema = z.object({ blobSourceId: z.string().min(1), runId: z.string().min(1) });
export type BlobSourceMessage = z.infer<typeof blobSourceMessageSchema>;

/** How long an instance holds a run before another copy of its message may take it over. */
export const RUN_LEASE_MINUTES = 15;
/** A claimed run no instance took after this long lost its message (a crash between claim and send): it is sent again. */
export const UNSENT_AFTER_SECONDS = 120;

/** Blob source runs as the scheduled-runs component sees them: performed from the `blob-sources` queue. */
export const blobSourceRunKind: RunKind<StoredBlobSourceRun> = {
  queue: "blob-sources",
  ownerField: "blobSourceId",
  ownerOf: (run) => run.blobSourceId,
  label: "a blob source",
  leaseSeconds: RUN_LEASE_MINUTES * 60,
  unsentAfterSeconds: UNSENT_AFTER_SECONDS,
  abandonedError: `the run stopped ${MAX_RUN_ATTEMPTS} times without finishing (the instance performing it was lost); the next run continues from what was recorded`,
};

/** A source's due time becomes a run whose id derives from the source and the time; `nextRunAt` moves to the first slot after now. */
export const blobSourceRunSchedule: RunSchedule<BlobSource, StoredBlobSourceRun> = {
  runFor: (source, dueAt, claim) => newRun(scheduledRunId(source.id, dueAt), source.id, "schedule", dueAt, claim),
  nextRunAt: (source, now) => nextRunAfter(source.schedule, now)?.toISOString() ?? null,
};

export function newRun(
  id: string,
  blobSourceId: string,
  trigger: BlobSourceRun["trigger"],
  scheduledFor: string,
  claim: RunClaim,
): StoredBlobSourceRun {
  return {
    id,
    blobSourceId,
    trigger,
    scheduledFor,
    status: "running",
    listed: 0,
    matched: 0,
    copied: 0,
    skipped: 0,
    files: [],
    ...claim,
  };
}

/** The run as the API answers it: without its lease. */
export function publicRun(run: StoredBlobSourceRun): BlobSourceRun {
  // A blob source's run is never retried after a failure (the next scheduled run continues): never "retrying".
  const { leaseUntil: _l, attempts: _a, ...rest } = run;
  return rest;
}
