// What ingesting a file derives from it: its job's id and origin, its version, its row errors as a job lists them.
import { createHash } from "node:crypto";
import { feedCreateSchema, type FeedDefinition, type StoredFeed } from "../../domain/feed";
import { MAX_ROW_ERRORS, type ValidationOutcome } from "../../domain/feed-validation";
import type { Job } from "../../domain/job";
import type { WriteContext } from "../../domain/versions";
import { currentTraceId } from "../../observability/trace-context";
import type { StoredFileInfo } from "../../ports/file-store";

export const INBOUND = "inbound";
export const ARCHIVE = "archive";
export const QUARANTINE = "quarantine";

/** What a file's job says of where the file came from. */
export type Origin = Pick<Job, "source" | "dataType"> & { feedId: string; fileName: string };

/**
 * Attempts of one version of a file that may start and never finish (the process running them
 * ended); the next start gives up on the file. One interrupted attempt (a redeploy, a kill) is normal.
 */
export const MAX_UNFINISHED_ATTEMPTS = 3;

/** One version of an inbound file: its name, and the time and size it was stored with (a new upload is a new version). */
export const fileVersion = (name: string, info: StoredFileInfo): string =>
  hashOf(name, info.lastModified.toISOString(), String(info.size)).slice(0, 32);

/** What became of one inbound file. */
export type IngestOutcome =
  | { action: "ignored" | "waiting" | "gone"; reason: string }
  | { action: "ingested" | "tested" | "duplicate" | "rejected" | "rerun"; jobId: string };

export const hashOf = (...parts: string[]): string => createHash("sha256").update(parts.join("\u0000")).digest("hex");

/** The job of a file: the same for the same content of the same feed in the same status, so a re-run finds it. */
export const fileJobId = (feedId: string, mode: "live" | "testing", sha256: string): string =>
  `job_${hashOf(feedId, mode, sha256).slice(0, 24)}`;

/** The listed row errors (the first MAX_ROW_ERRORS), and a word when there were more; the counts are complete regardless. */
export const rowErrors = (outcome: ValidationOutcome): Job["errors"] => [
  ...outcome.errors.map((e) => ({
    field: e.field,
    message: `${e.row === 0 ? "header" : `row ${e.row}`}${e.column !== undefined ? ` (${e.column})` : ""}: ${e.message}`,
  })),
  ...(outcome.errorsTruncated
    ? [
        {
          field: "",
          message: `more row errors than the ${MAX_ROW_ERRORS} listed; counts.rejected counts every rejected row`,
        },
      ]
    : []),
];

/**
 * The channel a file came by and the name its job shows: a blob source's copy (stored under a
 * version folder so two versions cannot overwrite each other) by the customer's own blob name.
 */
export function originOf(
  inboxName: string,
  metadata: Record<string, string>,
  unlabelledSource: "sftp" | "blob",
): { source: Job["source"]; fileName: string } {
  const label = metadata["source"];
  const source = label === "sftp" || label === "blob" ? label : unlabelledSource;
  const customerName = metadata["sourcename"];
  if (customerName === undefined) return { source, fileName: inboxName };
  try {
    return { source, fileName: decodeURIComponent(customerName) };
  } catch {
    return { source, fileName: inboxName };
  }
}

/** The definition part of a stored feed, re-parsed so defaults the schema gained since are filled. */
export function definitionOf(f: StoredFeed): FeedDefinition {
  const { name, provider, dataType, format, filePattern, options, mapping, validation, status } = f;
  return feedCreateSchema.parse({
    name,
    provider,
    dataType,
    format,
    filePattern,
    options,
    mapping,
    validation,
    status,
  });
}

/** Who writes a file's records: the blob source that copied it into inbound, else its feed; and the ingestion's trace. */
export function writerOf(feedId: string, metadata: Record<string, string>): WriteContext {
  const blobSource = metadata["blobsourceid"];
  return {
    recordedBy: blobSource !== undefined ? `blob-source:${blobSource}` : `feed:${feedId}`,
    requestId: currentTraceId() ?? null,
    jobId: null,
  };
}
