import type { Position, PositionSnapshot } from "../../../domain/position";
import type { Clock } from "../../../ports/clock";
import type { PositionRepository, SnapshotRef, WriteCounts } from "../../../ports/investment-repositories";
import { commitInBatches, sumCounts, type PreparedImport } from "./import-types";
import type { ReferenceResolver } from "./reference-resolver";
import { parseRecords, type Problems } from "./validate-payload";

export interface PositionImportDeps {
  positions: PositionRepository;
  references: ReferenceResolver;
  clock: Clock;
}

const samePosition = (a: Position, b: Position): boolean =>
  a.quantity === b.quantity && a.costBasis === b.costBasis && a.currency === b.currency;

/** Positions: the records of one portfolio and date replace that date's snapshot whole. */
export async function preparePositions(
  body: unknown,
  problems: Problems,
  deps: PositionImportDeps,
): Promise<PreparedImport> {
  const records = parseRecords("positions", body, problems);
  await deps.references.loadPortfolios(records);
  await deps.references.loadSecurities(records);
  const snapshots = new Map<string, { ref: SnapshotRef; positions: Map<string, Position>; currencies: Set<string> }>();
  records.forEach((r, i) => {
    if (r === undefined) return;
    const portfolio = deps.references.portfolio(r, `positions[${i}]`, problems, { allowComposite: false });
    const security = deps.references.security(r, `positions[${i}]`, problems);
    if (portfolio === undefined || security === undefined) return;
    const key = `${portfolio.id}|${r.date}`;
    const snapshot = snapshots.get(key) ?? {
      ref: { portfolioId: portfolio.id, date: r.date },
      positions: new Map(),
      currencies: new Set(),
    };
    snapshots.set(key, snapshot);
    if (snapshot.positions.has(security.id)) {
      problems.add(
        `positions[${i}]`,
        `security '${security.id}' appears twice in portfolio '${portfolio.code}' on ${r.date}`,
      );
      return;
    }
    snapshot.positions.set(security.id, {
      securityId: security.id,
      quantity: r.quantity,
      costBasis: r.costBasis ?? null,
      currency: r.currency ?? null,
    });
    snapshot.currencies.add(security.currency);
  });
  problems.throwIfAny();
  return {
    received: records.length,
    async commit(_jobId, progress, stale) {
      const existing = await deps.positions.getSnapshots([...snapshots.values()].map((s) => s.ref));
      const now = deps.clock.now().toISOString();
      // One entry per snapshot: its records' counts, and the snapshot when it has to be written.
      const entries: { counts: WriteCounts; write: PositionSnapshot | undefined }[] = [];
      for (const [key, s] of snapshots) {
        const counts: WriteCounts = { created: 0, updated: 0, unchanged: 0 };
        const before = new Map((existing.get(key)?.positions ?? []).map((p) => [p.securityId, p]));
        let differs = before.size !== s.positions.size;
        for (const position of s.positions.values()) {
          const old = before.get(position.securityId);
          if (old === undefined) counts.created++;
          else if (samePosition(old, position)) counts.unchanged++;
          else counts.updated++;
          if (old === undefined || !samePosition(old, position)) differs = true;
        }
        entries.push({
          counts,
          write: differs
            ? { ...s.ref, positions: [...s.positions.values()], currencies: [...s.currencies].sort(), updatedAt: now }
            : undefined,
        });
      }
      const counts = await commitInBatches(entries, progress, async (batch) => {
        const writes = batch.flatMap((e) => (e.write === undefined ? [] : [e.write]));
        // Exactly the snapshots that differ are marked, before they are written.
        await stale.mark(writes.map(({ portfolioId, date }) => ({ portfolioId, date })));
        await deps.positions.saveSnapshots(writes);
        return sumCounts(batch.map((e) => e.counts));
      });
      return { counts, events: [], dataQuality: [] };
    },
  };
}
