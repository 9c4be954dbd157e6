import type { ContainerLocation } from "../domain/blob-source-container-url";
import type { BlobSource } from "../domain/blob-source";
import type { BlobSourceRun, CopiedFile } from "../domain/blob-source-run";
import type { CustomerBlob } from "../domain/customer-blob";
import type { SettingsRepository } from "./settings-repository";

/** Stored blob sources (System Settings → Blob sources). */
export type BlobSourceRepository = SettingsRepository<BlobSource>;

/** A run as stored: the public record plus its lease (see ScheduledRun). */
export interface StoredBlobSourceRun extends BlobSourceRun {
  /** Until when the claim waits for an instance, or an instance performs the run; another copy of its message waits it out. */
  leaseUntil?: string;
  /** How many times an instance took the run (a lost instance's run is taken again, a few times). */
  attempts?: number;
}

/** The customer blob versions each blob source copied (Cosmos `runs`, one partition per source, beside its runs). */
export interface BlobSourceVersions {
  /** Which of `blobs` (name + ETag) a run of the source copied already, as `versionKey`s. */
  seen(sourceId: string, blobs: readonly CustomerBlob[]): Promise<Set<string>>;
  /** Records a version as copied (idempotent). */
  markSeen(sourceId: string, file: CopiedFile, runId: string, at: string): Promise<void>;
}

/** What became of one copy. */
export type CopyOutcome =
  /** Streamed into inbound. */
  | "copied"
  /** That version was in inbound already (an earlier attempt copied it and stopped before recording it). */
  | "present"
  /** The blob changed or went away since it was listed: the next run takes the new version. */
  | "changed";

/**
 * Reads customers' containers (never writes them) and streams blobs into the service's inbound
 * container: the managed identity on Azure, the emulator's key on the local emulator.
 */
export interface CustomerContainers {
  /** The blobs under `prefix`, a listing page at a time. */
  list(location: ContainerLocation, prefix: string | undefined): AsyncIterable<CustomerBlob[]>;
  /** Streams exactly the version `blob.etag` into `inbound/<inboundName>` with `metadata`; never overwrites. */
  copyToInbound(
    location: ContainerLocation,
    blob: CustomerBlob,
    inboundName: string,
    metadata: Record<string, string>,
  ): Promise<CopyOutcome>;
}
