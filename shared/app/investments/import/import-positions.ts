import type { PositionImport } from "../../../domain/position";
import type { Clock } from "../../../ports/clock";
import type { PositionRepository } from "../../../ports/investment-repositories";
import { commitInBatches, type ImportCounts, type PreparedImport } from "./import-types";
import type { ReferenceResolver } from "./reference-resolver";
import { nextSnapshot, type SnapshotRows } from "./snapshot-rows";
import { type Problems, type RecordOf } from "./validate-payload";

export interface PositionImportDeps {
  positions: PositionRepository;
  references: ReferenceResolver;
  clock: Clock;
}

/**
 * Positions: the records of one portfolio and date replace that date's snapshot whole; a position
 * the new snapshot lacks is removed (and counted). The calls of one file (its job) build each
 * snapshot together: a later call adds to what the file's earlier calls stored.
 */
export async function preparePositions(
  records: readonly (RecordOf<"positions"> | undefined)[],
  problems: Problems,
  deps: PositionImportDeps,
): Promise<PreparedImport> {
  await deps.references.loadPortfolios(records);
  await deps.references.loadSecurities(records);
  const snapshots = new Map<string, SnapshotRows>();
  records.forEach((r, i) => {
    if (r === undefined) return;
    const portfolio = deps.references.portfolio(r, `positions[${i}]`, problems, { allowComposite: false });
    const security = deps.references.security(r, `positions[${i}]`, problems);
    if (portfolio === undefined || security === undefined) return;
    const key = `${portfolio.id}|${r.date}`;
    const snapshot = snapshots.get(key) ?? {
      ref: { portfolioId: portfolio.id, date: r.date },
      rows: new Map<string, PositionImport>(),
      currencies: new Map<string, string>(),
    };
    snapshots.set(key, snapshot);
    if (snapshot.rows.has(security.id)) {
      problems.add(
        `positions[${i}]`,
        `security '${security.id}' appears twice in portfolio '${portfolio.code}' on ${r.date}`,
      );
      return;
    }
    snapshot.rows.set(security.id, r);
    snapshot.currencies.set(security.id, security.currency);
  });
  problems.throwIfAny();
  return {
    received: records.length,
    snapshotsSpanCalls: true,
    async commit(jobId, progress, stale, part) {
      const existing = await deps.positions.getSnapshots([...snapshots.values()].map((s) => s.ref));
      const now = deps.clock.now().toISOString();
      // One entry per snapshot: its records' counts, and the snapshot when it has to be written.
      const entries = [...snapshots].map(([key, rows]) => {
        const stored = existing.get(key);
        // A later call of the same file continues the snapshot its earlier calls wrote.
        const continues = part !== undefined && !part.first && stored?.jobId === jobId;
        return nextSnapshot(rows, stored, { jobId, updatedAt: now, continues, more: part !== undefined && !part.last });
      });
      const counts = await commitInBatches(entries, progress, async (batch) => {
        const writes = batch.flatMap((e) => (e.write === undefined ? [] : [e.write]));
        // Exactly the snapshots whose positions differ are marked, before they are written.
        await stale.mark(batch.flatMap((e) => (e.changed ? [e.ref] : [])));
        await deps.positions.saveSnapshots(writes);
        return batch.reduce<ImportCounts>(
          (sum, e) => ({
            created: sum.created + e.counts.created,
            updated: sum.updated + e.counts.updated,
            unchanged: sum.unchanged + e.counts.unchanged,
            removed: sum.removed + e.counts.removed,
          }),
          { created: 0, updated: 0, unchanged: 0, removed: 0 },
        );
      });
      // The file's last call: what its earlier calls kept for counting is no longer needed.
      if (part !== undefined && part.last && !part.first) await deps.positions.dropReplaced(jobId);
      return { counts, events: [], dataQuality: [] };
    },
  };
}
