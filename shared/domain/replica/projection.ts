/**
 * The replica's projection: what one stored document puts into the `analytics` tables. Pure (no I/O):
 * the same function feeds Azure SQL Database in Azure and PostgreSQL locally.
 */
import { createHash } from "node:crypto";
import type { Row } from "./column-values";
import type { TableDefinition } from "./table-types";

/** The containers whose change feeds the replica reads, with their partition key field. */
export const replicaSources = {
  portfolios: "id",
  securities: "id",
  prices: "securityId",
  fxRates: "pair",
  positions: "portfolioId",
  transactions: "portfolioId",
  jobs: "id",
  exceptions: "id",
  // The closed versions of the records above (`<kind>|<the record's partition key>`).
  versions: "key",
} as const;
export type ReplicaSource = keyof typeof replicaSources;
export const replicaSourceNames = Object.keys(replicaSources) as ReplicaSource[];

/**
 * The document types that carry a version (every projected type but valuation chunks, which are
 * written once and staged under their run): the settings answer counts these to show progress.
 */
export const versionedDocTypes: Record<ReplicaSource, readonly string[]> = {
  portfolios: ["portfolio"],
  securities: ["security"],
  prices: ["price"],
  fxRates: ["fx"],
  positions: ["snapshot", "valuation"],
  transactions: ["transaction"],
  jobs: ["job"],
  exceptions: ["exception"],
  versions: ["version"],
};

/**
 * What else a projected document must be, beyond its type: of the `versions` container only the
 * closed copies of the replica's records (an open copy is a change in progress; valuations' headers
 * have no table of versions).
 */
export const projectedWhere: Partial<Record<ReplicaSource, string>> = {
  versions: "c.recordedTo != null AND c.kind != 'valuation'",
};

/** The rows of `table` whose `key` columns have these values are exactly `rows`. */
export interface RowGroup {
  table: TableDefinition;
  key: Row;
  rows: Row[];
  /**
   * An open version's rows (a version table): left as they are where that version is already closed,
   * so a late change of the record never reopens a version its closed copy has closed.
   */
  keepClosed?: true;
}

/** The stored document a projection comes from: what an exception about it names. */
export interface DocumentOrigin {
  id: string;
  docType: string;
  partitionKey: string;
  /** A hash of container, partition key and id. */
  docKey: string;
  /** The document is itself a REPLICA_REJECTED exception (reporting its rejection could go on forever). */
  reportsRejection?: true;
}

/** What applying one document does to the replica. */
export interface DocumentProjection {
  source: ReplicaSource;
  origin: DocumentOrigin;
  /** Identifies the document (its origin's docKey) and orders its versions. */
  version?: { docKey: string; lsn: number; ts: number };
  groups: RowGroup[];
  /** A valuation header: the portfolio-date's holdings become the staged rows of this run. */
  holdingsRun?: HoldingsRun;
  /** Versions this document's version replaced, whose rows are closed where still open. */
  closes?: VersionClose[];
  /**
   * Its rows may already be there though the document is new to the replica: a closed copy's rows were
   * its record's open rows. Replaced, never only inserted.
   */
  overwrites?: true;
  /** Values adapted to fit their columns (rounded, shortened). */
  warnings: string[];
  /**
   * Why the replica cannot hold this version (a value no column of ours can store, or one the engine
   * refused): it writes no rows, only its version is recorded, and an exception says so.
   */
  rejected?: string;
}

/** A version the replica cannot hold: no rows, its version recorded, why kept. */
export const rejectedProjection = (p: DocumentProjection, reason: string): DocumentProjection => ({
  source: p.source,
  origin: p.origin,
  ...(p.version !== undefined ? { version: p.version } : {}),
  groups: [],
  warnings: [],
  rejected: reason,
});

/** The run of a valuation header: its computation version orders it against other runs of the portfolio-date. */
export interface HoldingsRun {
  portfolioId: string;
  date: string;
  runId: string;
  /** Compared as strings, as the store compares them ("" for headers stored before versions existed). */
  version: string;
}

/**
 * The rows of one version (`key` and `version`) that are still open get `recorded_to = at`: a record's
 * new current version closes its previous one, whichever of the two changes (the record's, or its closed
 * copy's from the `versions` container) arrives first.
 */
export interface VersionClose {
  table: TableDefinition;
  key: Row;
  version: number;
  at: string;
}

/** A change the projection skips: the document is not one the replica shows, or not a change it can order. */
export type Skipped = { skipped: "not-projected" } | { skipped: "unreadable"; reason: string };

export function docKeyOf(source: ReplicaSource, partitionKey: unknown, id: string): string {
  return createHash("sha256")
    .update(`${source}\u0000${JSON.stringify(partitionKey ?? null)}\u0000${id}`)
    .digest("hex");
}
