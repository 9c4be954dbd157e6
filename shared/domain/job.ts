import { z } from "zod";

export const jobSchema = z
  .object({
    id: z.string(),
    source: z.enum(["api", "sftp", "blob"]),
    dataType: z.string(),
    feedId: z.string().nullable(),
    fileName: z.string().nullable(),
    status: z.enum(["running", "completed", "failed"]),
    counts: z.object({
      received: z.number().int(),
      accepted: z.number().int(),
      rejected: z.number().int(),
      removed: z.number().int().meta({
        description:
          "Positions that the snapshots the job replaced no longer have (positions imports; 0 for other data)",
      }),
    }),
    errors: z.array(z.object({ field: z.string(), message: z.string() })),
    startedAt: z.iso.datetime(),
    completedAt: z.iso.datetime().nullable(),
    duplicateOf: z.string().optional().meta({
      description:
        "A file whose content this feed already ingested: the job that ingested it (nothing was written again)",
    }),
    reprocessOf: z.string().optional().meta({
      description:
        "A file processed again (POST /api/v1/jobs/{jobId}/reprocess): the failed job whose quarantined file this job read",
    }),
    file: z
      .object({
        container: z.enum(["quarantine", "archive"]),
        name: z.string(),
        sha256: z.string(),
      })
      .optional()
      .meta({
        description:
          "Where the service keeps the job's file (GET /api/v1/jobs/{jobId}/file downloads it) and its content's SHA-256",
      }),
    leaseUntil: z.iso.datetime().nullable().meta({
      description:
        "While running: the import renews this as it goes; a running job whose lease has passed was abandoned (its process ended) and is marked failed. Null once finished",
    }),
  })
  .meta({ id: "RefreshJob" });
export type Job = z.infer<typeof jobSchema>;

/** How long a running import holds its job without renewing: it renews after every stored batch and phase. */
export const JOB_LEASE_MS = 5 * 60 * 1000;

export const leaseFrom = (now: Date): string => new Date(now.getTime() + JOB_LEASE_MS).toISOString();

/** Stored minus nothing: what a job reports as accepted when it stops, from what its batches wrote. */
export const acceptedOf = (c: { created: number; updated: number; unchanged: number }): number =>
  c.created + c.updated + c.unchanged;
