import { project } from "../../domain/replica/project-document";
import type { DocumentProjection, ReplicaSource } from "../../domain/replica/projection";
import type { ReplicaStore } from "../../ports/replica-store";

export interface ProjectChangesDeps {
  store: ReplicaStore;
  log: {
    warn(message: string, fields?: Record<string, unknown>): void;
    error(message: string, fields?: Record<string, unknown>): void;
    debug(message: string, fields?: Record<string, unknown>): void;
  };
}

export interface ProjectChangesInput {
  source: ReplicaSource;
  /** One change-feed batch, in feed order. */
  documents: readonly unknown[];
}

/**
 * One change-feed batch into the replica: each document projected, the batch applied in one
 * transaction. A throw leaves the batch to be delivered again (the version guard makes that safe); a
 * document that cannot be read is logged and left out, so it never blocks the feed behind it.
 */
export class ProjectChanges {
  constructor(private readonly deps: ProjectChangesDeps) {}

  async execute({
    source,
    documents,
  }: ProjectChangesInput): Promise<{ applied: number; unchanged: number; skipped: number }> {
    const projections: DocumentProjection[] = [];
    let skipped = 0;
    for (const document of documents) {
      const result = project(source, document);
      if ("skipped" in result) {
        skipped++;
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
      projections.push(result);
    }
    const { applied, unchanged } = await this.deps.store.apply(projections);
    this.deps.log.debug("replica: batch applied", { source, received: documents.length, applied, unchanged, skipped });
    return { applied, unchanged, skipped };
  }
}
