import { project } from "../../domain/replica/project-document";
import { rejectedProjection, type DocumentProjection, type ReplicaSource } from "../../domain/replica/projection";
import type { Logger } from "../../logging";
import { ReplicaRejected, type ReplicaStore } from "../../ports/replica-store";
import type { DataQualityExceptions } from "../investments/data-quality-exceptions";
import { rejectionException } from "./replica-rejection";

export interface ProjectChangesDeps {
  store: ReplicaStore;
  log: Logger;
  /** Where a document the replica cannot hold is reported (`REPLICA_REJECTED`), for a person to see. */
  exceptions: Pick<DataQualityExceptions, "open">;
  /** Rows one transaction writes at most: a batch of big documents (valuations' holdings) is applied in parts, in order. */
  maxRowsPerTransaction?: number;
}

export interface ProjectChangesInput {
  source: ReplicaSource;
  /** One change-feed batch, in feed order. */
  documents: readonly unknown[];
}

export interface ProjectedBatch {
  /** Versions applied (a rejected document's version included). */
  applied: number;
  unchanged: number;
  /** Changes the replica does not show, or cannot order (no `_lsn`): logged. */
  skipped: number;
  /** Documents the replica cannot hold: each reported as a `REPLICA_REJECTED` exception, its version recorded. */
  rejected: number;
}

const rowsOf = (p: DocumentProjection): number => p.groups.reduce((sum, g) => sum + g.rows.length, 0) + 1;

/**
 * One change-feed batch into the replica: each document projected and the batch applied in feed
 * order, in transactions of bounded size. One document never stops the feed: one the projection
 * cannot read, or whose value the engine refuses, is skipped with an exception and its version
 * recorded, so the documents after it still arrive. Any other failure (the database unreachable, a
 * deadlock) throws, and the batch is delivered again (the version guard makes the parts already
 * applied no-ops), so nothing is lost.
 */
export class ProjectChanges {
  constructor(private readonly deps: ProjectChangesDeps) {}

  async execute({ source, documents }: ProjectChangesInput): Promise<ProjectedBatch> {
    const limit = this.deps.maxRowsPerTransaction ?? 20_000;
    const totals: ProjectedBatch = { applied: 0, unchanged: 0, skipped: 0, rejected: 0 };
    let part: DocumentProjection[] = [];
    let rows = 0;
    const flush = async (): Promise<void> => {
      if (part.length === 0) return;
      await this.report(part.filter((p) => p.rejected !== undefined));
      const done = await this.isolating(part);
      for (const key of ["applied", "unchanged", "rejected"] as const) totals[key] += done[key];
      part = [];
      rows = 0;
    };
    for (const document of documents) {
      const result = project(source, document);
      if ("skipped" in result) {
        totals.skipped++;
        const id = typeof document === "object" && document !== null ? (document as { id?: unknown }).id : undefined;
        if (result.skipped === "unreadable")
          this.deps.log.error("replica: a change cannot be ordered and is left out", {
            source,
            id,
            reason: result.reason,
          });
        continue;
      }
      if (result.warnings.length > 0)
        this.deps.log.warn("replica: values adapted to their columns", {
          source,
          warnings: result.warnings.slice(0, 20),
        });
      if (rows > 0 && rows + rowsOf(result) > limit) await flush();
      part.push(result);
      rows += rowsOf(result);
    }
    await flush();
    this.deps.log.debug("replica: batch applied", { source, received: documents.length, ...totals });
    return totals;
  }

  /**
   * Applies a part in one transaction; when the engine refuses a value in it, halves it (in order) until
   * the documents it refuses stand alone, and rejects those: a poisoned batch of n documents costs about
   * 2·log2(n) extra transactions, and every other document is still applied in batches.
   */
  private async isolating(part: readonly DocumentProjection[]): Promise<Omit<ProjectedBatch, "skipped">> {
    try {
      const { applied, unchanged } = await this.deps.store.apply(part);
      return { applied, unchanged, rejected: part.filter((p) => p.rejected !== undefined).length };
    } catch (error) {
      if (!(error instanceof ReplicaRejected)) throw error;
      const [only] = part;
      if (part.length === 1 && only !== undefined) {
        if (only.rejected !== undefined) throw error; // no values left to refuse: not the data's fault
        const rejected = rejectedProjection(only, error.engineMessage);
        await this.report([rejected]);
        return this.isolating([rejected]);
      }
      const half = Math.ceil(part.length / 2);
      const first = await this.isolating(part.slice(0, half));
      const second = await this.isolating(part.slice(half));
      return {
        applied: first.applied + second.applied,
        unchanged: first.unchanged + second.unchanged,
        rejected: first.rejected + second.rejected,
      };
    }
  }

  /**
   * The exception comes before the version is recorded: a crash between the two delivers the batch
   * again, and opening the same exception again changes nothing.
   */
  private async report(rejected: readonly DocumentProjection[]): Promise<void> {
    if (rejected.length === 0) return;
    for (const p of rejected)
      this.deps.log.error("replica: a document the replica cannot hold is skipped", {
        source: p.source,
        id: p.origin.id,
        reason: p.rejected,
      });
    // An exception about a rejected REPLICA_REJECTED exception could be rejected in turn, and so on: logged only.
    const reportable = rejected.filter((p) => p.origin.reportsRejection !== true);
    if (reportable.length > 0) await this.deps.exceptions.open(reportable.map(rejectionException), null);
  }
}
