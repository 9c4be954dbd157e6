import { z } from "zod";
import { exportSchema, fileNameSchema } from "./export";
import { exportScheduleSchema } from "./export-schedule";

/** What the New Export form knows before saving: enough to say when the export runs and what its files are called. */
export const exportPreviewRequestSchema = z
  .strictObject({
    dataType: exportSchema.shape.dataType,
    format: exportSchema.shape.format,
    schedule: exportScheduleSchema,
    fileName: fileNameSchema,
    exportId: z.string().min(1).max(100).optional().meta({
      description: "The export's id, for the {exportId} token (a new export has none yet: the token is shown as it is)",
    }),
    count: z.number().int().min(1).max(10).default(3).meta({ description: "How many runs to show (default 3)" }),
  })
  .meta({ id: "ExportPreviewRequest" });
export type ExportPreviewRequest = z.infer<typeof exportPreviewRequestSchema>;

export const exportPreviewSchema = z
  .object({
    timezone: z
      .string()
      .meta({ description: "The schedule's time zone, in which `time` and the naming tokens are read" }),
    nextRuns: z.array(
      z.object({
        at: z.iso.datetime().meta({ description: "The scheduled time (UTC)" }),
        fileName: z.string().meta({ description: "The name of the file that run writes" }),
      }),
    ),
  })
  .meta({ id: "ExportPreview" });
export type ExportPreview = z.infer<typeof exportPreviewSchema>;
