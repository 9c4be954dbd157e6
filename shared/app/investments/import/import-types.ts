import type { EventEnvelope } from "../../../domain/events";
import type { DataQualityCandidate } from "../../../domain/data-quality-exception";
import type { SnapshotRef, WriteCounts } from "../../../ports/investment-repositories";

/** What an import's writes did: the records' counts, and the positions snapshots lost (positions only). */
export interface ImportCounts extends WriteCounts {
  removed: number;
}

/** What an import did, for the job, the outbox and the data-quality exceptions that follow it. */
export interface ImportOutcome {
  counts: ImportCounts;
  events: EventEnvelope[];
  dataQuality: DataQualityCandidate[];
}

/** Where a call stands in a file imported in several calls under one job (absent: the import is one call). */
export interface ImportPart {
  first: boolean;
  last: boolean;
}

/**
 * Where an import says which portfolio-dates its data makes stale: BEFORE it writes that data, so no
 * crash can leave changed data with no marker to revalue it (see StaleMarking).
 */
export interface StaleMarks {
  mark(refs: readonly SnapshotRef[]): Promise<void>;
}

/** Told after each batch of records is stored, so that a job can say what was written if it stops. */
export interface CommitProgress {
  /** Records written per batch. */
  batchSize: number;
  stored(counts: ImportCounts): Promise<void>;
}

/** A payload that passed validation, ready to write. */
export interface PreparedImport {
  received: number;
  /**
   * The data forms snapshots that a file's calls build together (positions): the markers of a call
   * that is not the file's last wait, as the job's, until the last call is stored, so that no
   * snapshot is valued with only part of the file's rows. Other data is valued call by call.
   */
  snapshotsSpanCalls?: boolean;
  commit(jobId: string, progress: CommitProgress, stale: StaleMarks, part?: ImportPart): Promise<ImportOutcome>;
}

/**
 * Records per stored batch by default: a whole REST import (at most 10,000 records) or a whole import
 * call of a file's ingestion (which feeds the import this many rows at a time) in one. Each batch has a
 * fixed cost (the securities' newest-price documents are read and merged again, what the data makes
 * stale is looked up, the job is rewritten): smaller batches made a 10,000-price import three times
 * slower, and a million-row file spent a fifth of its writes on the newest-price documents at 10,000.
 * A job's counts and lease move along after every batch.
 */
export const COMMIT_BATCH = 20_000;

export const sumCounts = (all: readonly (WriteCounts & { removed?: number })[]): ImportCounts =>
  all.reduce<ImportCounts>(
    (sum, c) => ({
      created: sum.created + c.created,
      updated: sum.updated + c.updated,
      unchanged: sum.unchanged + c.unchanged,
      removed: sum.removed + (c.removed ?? 0),
    }),
    { created: 0, updated: 0, unchanged: 0, removed: 0 },
  );

/** Writes `items` batch by batch, reporting each batch's counts; returns the sum. */
export async function commitInBatches<T>(
  items: readonly T[],
  progress: CommitProgress,
  write: (batch: readonly T[]) => Promise<WriteCounts & { removed?: number }>,
): Promise<ImportCounts> {
  let total: ImportCounts = { created: 0, updated: 0, unchanged: 0, removed: 0 };
  for (let start = 0; start < items.length; start += progress.batchSize) {
    const counts = sumCounts([await write(items.slice(start, start + progress.batchSize))]);
    total = sumCounts([total, counts]);
    await progress.stored(counts);
  }
  return total;
}
