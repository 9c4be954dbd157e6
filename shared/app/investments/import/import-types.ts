import type { EventEnvelope } from "../../../domain/events";
import type { DataQualityCandidate } from "../../../domain/data-quality-exception";
import type { SnapshotRef, WriteCounts } from "../../../ports/investment-repositories";

/** What an import did, for the job, the outbox and the data-quality exceptions that follow it. */
export interface ImportOutcome {
  counts: WriteCounts;
  events: EventEnvelope[];
  dataQuality: DataQualityCandidate[];
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
  stored(counts: WriteCounts): Promise<void>;
}

/** A payload that passed validation, ready to write. */
export interface PreparedImport {
  received: number;
  commit(jobId: string, progress: CommitProgress, stale: StaleMarks): Promise<ImportOutcome>;
}

/**
 * Records per stored batch by default: a whole REST import (at most 10,000 records) in one. Each
 * batch has a fixed cost (the securities' newest-price documents are read and merged again, the job
 * is rewritten), so smaller batches made a 10,000-price import three times slower. A job's counts
 * and lease move along after every batch; file ingestion feeds the import in batches of this size.
 */
export const COMMIT_BATCH = 10_000;

export const sumCounts = (all: readonly WriteCounts[]): WriteCounts =>
  all.reduce(
    (sum, c) => ({
      created: sum.created + c.created,
      updated: sum.updated + c.updated,
      unchanged: sum.unchanged + c.unchanged,
    }),
    { created: 0, updated: 0, unchanged: 0 },
  );

/** Writes `items` batch by batch, reporting each batch's counts; returns the sum. */
export async function commitInBatches<T>(
  items: readonly T[],
  progress: CommitProgress,
  write: (batch: readonly T[]) => Promise<WriteCounts>,
): Promise<WriteCounts> {
  const total: WriteCounts = { created: 0, updated: 0, unchanged: 0 };
  for (let start = 0; start < items.length; start += progress.batchSize) {
    const counts = await write(items.slice(start, start + progress.batchSize));
    total.created += counts.created;
    total.updated += counts.updated;
    total.unchanged += counts.unchanged;
    await progress.stored(counts);
  }
  return total;
}
