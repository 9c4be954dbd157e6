import { z } from "zod";
import { exportDataTypes, exportFormats } from "./export-data";
import {
  exportDestinationPatchSchema,
  exportDestinationSchema,
  publicExportDestinationSchema,
  type StoredExportDestination,
  toPublicDestination,
} from "./export-destination";
import { fileNameProblem } from "./export-file-name";
import { exportPeriods, exportScheduleSchema, type ExportSchedule } from "./export-schedule";
import { idParam } from "./ids";
import { lastRunSchema, type LastRun } from "./last-run";

export const exportStatusSchema = z.enum(["enabled", "disabled"]);
export type ExportStatus = z.infer<typeof exportStatusSchema>;

const dataTypeSchema = z.enum(exportDataTypes, { error: `must be one of ${exportDataTypes.join(", ")}` });
const formatSchema = z.enum(exportFormats, { error: `must be one of ${exportFormats.join(", ")}` });

export const fileNameSchema = z
  .string()
  .min(1)
  .max(255)
  .superRefine((v, ctx) => {
    const problem = fileNameProblem(v);
    if (problem !== undefined) ctx.addIssue({ code: "custom", message: problem });
  })
  .meta({
    description:
      "Naming convention: text with the tokens {dataType}, {format}, {date:FORMAT}, {time:FORMAT} (date-fns letters, in the export's time zone) and {exportId}, e.g. holdings_{date:yyyyMMdd}.csv. The rendered name must be a plain file name of at most 230 characters (no .., no leading or trailing dot or space)",
  });

export const exportFiltersSchema = z
  .strictObject({
    portfolioIds: z.array(idParam(100)).min(1).max(1000).optional(),
    clientId: z.string().min(1).max(200).optional(),
    status: z.string().min(1).max(50).optional(),
    period: z.enum(exportPeriods).optional().meta({
      description:
        "transactions and prices: previous-day, previous-week, previous-month (relative to the run's scheduled time, in the export's time zone) or all; default by frequency",
    }),
  })
  .meta({ id: "ExportFilters" });
export type ExportFiltersInput = z.infer<typeof exportFiltersSchema>;

const PERIOD_TYPES = new Set(["transactions", "prices"]);

const definitionFields = {
  name: z.string().trim().min(1).max(200),
  dataType: dataTypeSchema,
  format: formatSchema,
  schedule: exportScheduleSchema,
  destination: exportDestinationSchema,
  fileName: fileNameSchema,
  filters: exportFiltersSchema.default({}),
  status: exportStatusSchema.default("enabled"),
};

/** The body of `POST /api/v1/settings/exports`; also what a PATCH's merge result must pass. */
export const exportCreateSchema = z
  .strictObject(definitionFields)
  .superRefine((d, ctx) => {
    if (d.filters.period !== undefined && !PERIOD_TYPES.has(d.dataType))
      ctx.addIssue({
        code: "custom",
        path: ["filters", "period"],
        message: `applies to transactions and prices only, not ${d.dataType}`,
      });
  })
  .meta({ id: "ExportCreate" });
export type ExportCreate = z.infer<typeof exportCreateSchema>;

/** PATCH: any field; nested objects are merged into the stored ones, then the whole is validated again. */
export const exportPatchSchema = z
  .strictObject({
    name: z.unknown().optional(),
    dataType: z.unknown().optional(),
    format: z.unknown().optional(),
    schedule: z.record(z.string(), z.unknown()).optional(),
    destination: z.record(z.string(), z.unknown()).optional(),
    fileName: z.unknown().optional(),
    filters: z.record(z.string(), z.unknown()).nullable().optional(),
    status: z.unknown().optional(),
  })
  .refine((p) => Object.values(p).some((v) => v !== undefined), { message: "at least one field is required" });
export type ExportPatch = z.infer<typeof exportPatchSchema>;

/** What the OpenAPI document shows for a PATCH body (the handler validates the merged result with the create schema). */
export const exportPatchDocSchema = z
  .strictObject({
    name: definitionFields.name.optional(),
    dataType: dataTypeSchema.optional(),
    format: formatSchema.optional(),
    schedule: z
      .object({
        frequency: z.string(),
        time: z.string(),
        timezone: z.string(),
        dayOfWeek: z.number().nullable(),
        dayOfMonth: z.union([z.number(), z.string()]).nullable(),
      })
      .partial()
      .optional(),
    destination: exportDestinationPatchSchema.optional(),
    fileName: fileNameSchema.optional(),
    filters: exportFiltersSchema.nullable().optional(),
    status: exportStatusSchema.optional(),
  })
  .meta({ id: "ExportPatch" });

export const exportSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    dataType: dataTypeSchema,
    format: formatSchema,
    schedule: exportScheduleSchema,
    destination: publicExportDestinationSchema,
    fileName: z.string(),
    filters: exportFiltersSchema,
    status: exportStatusSchema,
    nextRunAt: z.iso.datetime().nullable().meta({ description: "The next scheduled time (UTC); null while disabled" }),
    lastRun: lastRunSchema.nullable(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: "Export" });
export type Export = z.infer<typeof exportSchema>;

export const exportIdParams = z.object({ id: idParam(100) });

/** The stored form: destination secrets sealed. Never leaves the service. */
export interface StoredExport {
  id: string;
  name: string;
  dataType: ExportCreate["dataType"];
  format: ExportCreate["format"];
  schedule: ExportSchedule;
  destination: StoredExportDestination;
  fileName: string;
  filters: ExportFiltersInput;
  status: ExportStatus;
  nextRunAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export function toPublicExport(stored: StoredExport, lastRun: LastRun | null = null): Export {
  const { destination, ...rest } = stored;
  return { ...rest, destination: toPublicDestination(destination), lastRun };
}
