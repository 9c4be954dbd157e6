import { createHash } from "node:crypto";
import { z } from "zod";

export const blobSourceRunStatuses = ["running", "succeeded", "failed"] as const;

/** The copied files a run record lists at most (the counts are complete; a Cosmos document stays small). */
export const MAX_RUN_FILES = 500;

export const copiedFileSchema = z
  .object({
    name: z.string().meta({ description: "The blob's name in the customer's container" }),
    etag: z.string().meta({ description: "The version copied" }),
    inboundName: z.string().meta({
      description:
        "Where it went in the service's inbound container (<feedId>/<version>/<name>); the job's fileName is this without <feedId>/",
    }),
  })
  .meta({ id: "BlobSourceCopiedFile" });
export type CopiedFile = z.infer<typeof copiedFileSchema>;

export const blobSourceRunSchema = z
  .object({
    id: z.string(),
    blobSourceId: z.string(),
    trigger: z.enum(["schedule", "manual"]),
    scheduledFor: z.iso
      .datetime()
      .meta({ description: "The due time it ran for (schedule) or when it was asked for (manual)" }),
    status: z.enum(blobSourceRunStatuses),
    listed: z.number().int().meta({ description: "Blobs listed under the prefix" }),
    matched: z.number().int().meta({ description: "Of those, blobs whose base name matches filePattern" }),
    copied: z
      .number()
      .int()
      .meta({ description: "Matching blob versions copied to inbound by this run (each becomes a job of the feed)" }),
    skipped: z
      .number()
      .int()
      .meta({ description: "Matching blob versions not copied because an earlier (or concurrent) run copied them" }),
    files: z.array(copiedFileSchema).meta({ description: `The versions copied (at most ${MAX_RUN_FILES} listed)` }),
    error: z
      .string()
      .optional()
      .meta({ description: "Why a failed run stopped; what it copied before stays copied and the next run continues" }),
    startedAt: z.iso.datetime(),
    completedAt: z.iso.datetime().optional(),
  })
  .meta({ id: "BlobSourceRun" });
export type BlobSourceRun = z.infer<typeof blobSourceRunSchema>;

const hash = (...parts: string[]): string => createHash("sha256").update(parts.join("\u0000")).digest("hex");

/** The run a due time of a source's schedule becomes: the same id for the same source and time, so it is claimed once. */
export const scheduledRunId = (sourceId: string, dueAt: string): string => `bsr_${hash(sourceId, dueAt).slice(0, 24)}`;

/** A short tag of one blob version (name + ETag) of one source. */
export const versionTag = (sourceId: string, name: string, etag: string): string =>
  hash(sourceId, name, etag).slice(0, 16);

/**
 * Where a customer blob version lands in `inbound`: `<feedId>/<versionTag>/<name>`. Versions of one
 * name get different paths, so a new version never overwrites one still being ingested; the same
 * version always gets the same path, so copying it again after a crash is recognised.
 */
export const inboundNameOf = (feedId: string, sourceId: string, name: string, etag: string): string =>
  `${feedId}/${versionTag(sourceId, name, etag)}/${name}`;

/** The base name a feed's filePattern is matched against. */
export const baseNameOf = (name: string): string => name.slice(name.lastIndexOf("/") + 1);
