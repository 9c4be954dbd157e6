import type { DocumentProjection, ReplicaSource } from "../domain/replica/projection";

/** What one batch did: documents whose newer version was applied, and those already applied (or older). */
export interface ReplicaApplied {
  applied: number;
  unchanged: number;
}

/** What the replica holds: rows per `analytics` table, and per source container what was applied. */
export interface ReplicaContents {
  tables: { name: string; rows: number }[];
  sources: Record<ReplicaSource, { documents: number; newestTs: number | null }>;
  lastProjectedAt: string | null;
}

/**
 * The engine refused a value of the batch (a data error: a date out of its range, a byte sequence its
 * text cannot hold, a number beyond its column, …): applying the same batch again cannot succeed.
 * Anything else a store throws (a lost connection, a restarting server, a deadlock) may pass.
 */
export class ReplicaRejected extends Error {
  override readonly name = "ReplicaRejected";

  constructor(
    /** The engine's own message. */
    readonly engineMessage: string,
    options?: { cause?: unknown },
  ) {
    super(`the replica database refused a value: ${engineMessage}`, options);
  }
}

/** The replica database (Azure SQL Database or PostgreSQL): the projection's writes and what it holds. */
export interface ReplicaStore {
  /**
   * Applies a batch in one transaction: a document's rows are replaced only when its version is newer
   * than the one applied; a repeated or older change leaves everything as it is. Throws
   * `ReplicaRejected` (and applies nothing) when the engine refuses a value of the batch.
   */
  apply(projections: readonly DocumentProjection[]): Promise<ReplicaApplied>;
  contents(): Promise<ReplicaContents>;
}
