import type { EventEnvelope } from "../../domain/events";
import type { ExceptionCandidate } from "../../domain/exception";
import type { SnapshotRef, WriteCounts } from "../../ports/investment-repositories";

/** What an import did, for the job, the outbox, the exceptions and the revaluation that follow it. */
export interface ImportOutcome {
  counts: WriteCounts;
  events: EventEnvelope[];
  exceptions: ExceptionCandidate[];
  /** Finds the position snapshots whose value the written data changes. */
  affected(): Promise<SnapshotRef[]>;
}

/** A payload that passed validation, ready to write. */
export interface PreparedImport {
  received: number;
  commit(jobId: string): Promise<ImportOutcome>;
}
