import { posix } from "node:path";
import type { StoredExportDestination } from "./export-destination";

/**
 * The file a run writes, as one key: the same server (host, port), directory and name for SFTP; the
 * same container and blob name for blob. Two runs with one key write one file, whichever exports
 * they belong to. (Two spellings of one server, a name and its address, are two keys.)
 */
export function exportTargetKey(destination: StoredExportDestination, fileName: string): string {
  if (destination.type === "blob")
    return `blob ${destination.containerUrl.replace(/\/+$/, "").toLowerCase()}/${destination.prefix ?? ""}${fileName}`;
  const host = destination.host.toLowerCase().replace(/\.$/, "");
  return `sftp ${host}:${destination.port} ${posix.join(posix.normalize(destination.path), fileName)}`;
}

/** Who writes a target: one attempt of one run. */
export interface ExportTargetHolder {
  exportId: string;
  runId: string;
  attempt: number;
}

/**
 * One writer per target file at a time, across runs and exports: a lease in the `runs` container.
 * An attempt takes the target before it uploads and lets it go when done; it renews the lease with the
 * run's. A holder that dies holds the target only until its lease ends; a later attempt of the same
 * run takes it over at once (the run's own lease already says that attempt is gone).
 */
export interface ExportTargetLocks {
  /** Takes the target: true when it was free, its lease over, or held by an earlier attempt of the same run. */
  acquire(key: string, holder: ExportTargetHolder, now: string, leaseUntil: string): Promise<boolean>;
  /** Extends the lease; false when `holder` no longer holds the target (taken over after its lease ended). */
  renew(key: string, holder: ExportTargetHolder, leaseUntil: string): Promise<boolean>;
  /** Whether `holder` holds the target with a live lease. */
  holds(key: string, holder: ExportTargetHolder, now: string): Promise<boolean>;
  /** Lets the target go, if `holder` still holds it. */
  release(key: string, holder: ExportTargetHolder): Promise<void>;
}
