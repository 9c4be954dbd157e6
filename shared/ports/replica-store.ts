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

/** The replica database (Azure SQL Database or PostgreSQL): the projection's writes and what it holds. */
export interface ReplicaStore {
  /**
   * Applies a batch in one transaction: a document's rows are replaced only when its version is newer
   * than the one applied; a repeated or older change leaves everything as it is.
   */
  apply(projections: readonly DocumentProjection[]): Promise<ReplicaApplied>;
  contents(): Promise<ReplicaContents>;
}
