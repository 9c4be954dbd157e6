import { z } from "zod";
import { lastRunSchema } from "./last-run";
import { blobSourceScheduleSchema } from "./blob-source-schedule";
import { filePatternSchema } from "./feed-file-pattern";
import { idParam } from "./ids";

export { blobSourceScheduleSchema, nextRunAfter, type BlobSourceSchedule } from "./blob-source-schedule";

export const blobSourceStatusSchema = z.enum(["enabled", "disabled"]);
export type BlobSourceStatus = z.infer<typeof blobSourceStatusSchema>;

const name = z.string().trim().min(1).max(200);

/** Shape only; the service then checks it is an Azure container URL, or its own emulator's (see parseContainerUrl). */
const containerUrl = z.string().trim().min(1).max(2048).meta({
  description:
    "https://ACCOUNT.blob.core.windows.net/CONTAINER (or the local emulator's container URL when the service runs on the emulator); no SAS or credentials: grant the service's managed identity Storage Blob Data Reader on the container",
  example: "https://custodianexports.blob.core.windows.net/positions",
});

const prefix = z
  .string()
  .max(1024)
  .refine((p) => !/[\u0000-\u001f\u007f]/.test(p), { message: "must not contain control characters" })
  .meta({
    description: "Only blobs whose names start with it are listed (a folder such as daily/)",
    example: "daily/",
  });

export const blobSourceCreateSchema = z
  .strictObject({
    name,
    containerUrl,
    prefix: prefix.optional(),
    filePattern: filePatternSchema,
    feedId: idParam(100).meta({ description: "The feed whose format, mapping and validation ingest the files" }),
    schedule: blobSourceScheduleSchema,
    status: blobSourceStatusSchema.default("enabled"),
  })
  .meta({ id: "BlobSourceCreate" });
export type BlobSourceCreate = z.infer<typeof blobSourceCreateSchema>;

/** Given fields replace the stored ones; `prefix: null` removes the prefix. */
export const blobSourcePatchSchema = z
  .strictObject({
    name: name.optional(),
    containerUrl: containerUrl.optional(),
    prefix: prefix.nullable().optional(),
    filePattern: filePatternSchema.optional(),
    feedId: idParam(100).optional(),
    schedule: blobSourceScheduleSchema.optional(),
    status: blobSourceStatusSchema.optional(),
  })
  .refine((p) => Object.values(p).some((v) => v !== undefined), { message: "at least one field is required" })
  .meta({ id: "BlobSourcePatch" });
export type BlobSourcePatch = z.infer<typeof blobSourcePatchSchema>;

export const blobSourceSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    containerUrl: z.string(),
    prefix: z.string().nullable(),
    filePattern: z.string(),
    feedId: z.string(),
    schedule: blobSourceScheduleSchema,
    status: blobSourceStatusSchema,
    nextRunAt: z.iso.datetime().nullable().meta({ description: "The next scheduled run (UTC); null while disabled" }),
    lastRun: lastRunSchema
      .nullable()
      .optional()
      .meta({ description: "The newest run (always answered; null when it never ran)" }),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: "BlobSource" });
/** A blob source as stored and as answered: it holds no secret (access is the service's managed identity). */
export type BlobSource = z.infer<typeof blobSourceSchema>;

export const blobSourceIdParams = z.object({ id: idParam(100) });
