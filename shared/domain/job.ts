import { z } from "zod";

export const jobSchema = z
  .object({
    id: z.string(),
    source: z.enum(["api", "sftp", "blob"]),
    dataType: z.string(),
    feedId: z.string().nullable(),
    fileName: z.string().nullable(),
    status: z.enum(["running", "completed", "failed"]),
    counts: z.object({ received: z.number().int(), accepted: z.number().int(), rejected: z.number().int() }),
    errors: z.array(z.object({ field: z.string(), message: z.string() })),
    startedAt: z.iso.datetime(),
    completedAt: z.iso.datetime().nullable(),
  })
  .meta({ id: "RefreshJob" });
export type Job = z.infer<typeof jobSchema>;
