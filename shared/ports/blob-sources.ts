import type { ContainerLocation } from "../domain/blob-source-container-url";
import type { BlobSourceRun, CopiedFile } from "../domain/blob-source-run";
import type { CustomerBlob } from "../domain/customer-blob";
import type { CursorPage, PageRequest } from "../domain/page-request";

/** A run as stored: the public record plus the lease of the instance performing it. */
export interface StoredBlobSourceRun extends BlobSourceRun {
  /** Until when an instance performs the run; another copy of its message waits it out. */
  leaseUntil?: string;
  /** How many times an instance took the run (a lost instance's run is taken again, a few times). */
  attempts?: number;
}

/** The runs of blob sources and the blob versions they copied (Cosmos `runs`, one partition per source). */
export interface BlobSourceRunStore {
  /** Creates the run unless one with its id exists: false then (a scheduled time claimed already). */
  create(run: StoredBlobSourceRun): Promise<boolean>;
  get(sourceId: string, runId: string): Promise<StoredBlobSourceRun | undefined>;
  /**
   * Takes a `running` run for this instance until `leaseUntil`, unless another holds a live lease on it:
   * the run as taken, or undefined (finished, missing, or taken).
   */
  take(sourceId: string, runId: string, now: string, leaseUntil: string): Promise<StoredBlobSourceRun | undefined>;
  /** Stores the run's progress or outcome. */
  save(run: StoredBlobSourceRun): Promise<void>;
  /**
   * Runs of any source still `running` that no instance performs: taken once but their lease ran out
   * (the instance was lost), or never taken and claimed before `unsentBefore` (their message was lost).
   */
  abandoned(now: string, unsentBefore: string): Promise<StoredBlobSourceRun[]>;
  /** Newest first. */
  list(sourceId: string, request: PageRequest): Promise<CursorPage<BlobSourceRun>>;
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
  copyToInbound(location: ContainerLocation, blob: CustomerBlob, inboundName: string, metadata: Record<string, string>): Promise<CopyOutcome>;
}
