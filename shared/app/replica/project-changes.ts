import { project } from "../../domain/replica/project-document";
import type { DocumentProjection, ReplicaSource } from "../../domain/replica/projection";
import type { Logger } from "../../logging";
import type { ReplicaStore } from "../../ports/replica-store";

export interface ProjectChangesDeps {
  store: ReplicaStore;
  log: Logger;
  /** Rows one transaction writes at most: a batch of big documents (valuations' holdings) is applied in parts, in order. */
  maxRowsPerTransaction?: number;
}

export interface ProjectChangesInput {
  source: ReplicaSource;
  /** One change-feed batch, in feed order. */
  documents: readonly unknown[];
}

const rowsOf = (p: DocumentProjection): number => p.groups.reduce((sum, g) => sum + g.rows.length, 0) + 1;

/**
 * One change-feed batch into the replica: each document projected and the batch applied in feed
 * order, in transactions of bounded size. A throw leaves the batch to be delivered again (the version
 * guard makes the parts already applied no-ops); a document that cannot be read is logged and left
 * out, so it never blocks the feed behind it.
 */
export class ProjectChanges {
  constructor(private readonly deps: ProjectChangesDeps) {}

  async execute({
    source,
    documents,
  }: ProjectChangesInput): Promise<{ applied: number; unchanged: number; skipped: number }> {
    const limit = this.deps.maxRowsPerTransaction ?? 20_000;
    const totals = { applied: 0, unchanged: 0, skipped: 0 };
    let part: DocumentProjection[] = [];
    let rows = 0;
    const flush = async (): Promise<void> => {
      if (part.length === 0) return;
      const { applied, unchanged } = await this.deps.store.apply(part);
      totals.applied += applied;
      totals.unchanged += unchanged;
      part = [];
      rows = 0;
    };
    for (const document of documents) {
      const result = project(source, document);
      if ("skipped" in result) {
        totals.skipped++;
        const id = typeof document === "object" && document !== null ? (document as { id?: unknown }).id : undefined;
        if (result.skipped === "unreadable")
          this.deps.log.error("replica: a stored document cannot be projected and is left out", {
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
}
