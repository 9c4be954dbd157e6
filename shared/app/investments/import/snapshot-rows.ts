import type { Position, PositionImport, PositionSnapshot } from "../../../domain/position";
import type { SnapshotRef } from "../../../ports/investment-repositories";
import type { ImportCounts } from "./import-types";

/** The records one import call has for one portfolio-date, by security id. */
export interface SnapshotRows {
  ref: SnapshotRef;
  rows: Map<string, PositionImport>;
  /** Each security's currency (which FX rates can change the snapshot's value). */
  currencies: Map<string, string>;
}

/** What one call does to one snapshot. */
export interface SnapshotChange {
  ref: SnapshotRef;
  counts: ImportCounts;
  /** The positions differ from the stored ones: the portfolio-date must be revalued. */
  changed: boolean;
  /** The snapshot to store, when it has to be written. */
  write: PositionSnapshot | undefined;
}

const samePosition = (a: Position, b: Position): boolean =>
  a.quantity === b.quantity && a.costBasis === b.costBasis && a.currency === b.currency;

/**
 * The snapshot after one call. A call replaces the stored snapshot, unless it `continues` what the
 * same file's earlier calls stored: then it adds to it, and a row for a position those calls
 * replaced (and have not restated) counts against that position, not as new. A record that leaves
 * `costBasis` or `currency` out keeps the value the position had; `null` clears it. `more`: the file
 * has calls still to come, so the snapshot is stored with its job and what it replaced, even unchanged.
 */
export function nextSnapshot(
  s: SnapshotRows,
  stored: PositionSnapshot | undefined,
  how: { jobId: string; updatedAt: string; continues: boolean; more: boolean },
): SnapshotChange {
  const before = new Map((stored?.positions ?? []).map((p) => [p.securityId, p]));
  const positions = how.continues ? new Map(before) : new Map<string, Position>();
  const replaced = how.continues ? new Map((stored?.replaced ?? []).map((p) => [p.securityId, p])) : new Map(before);
  const replacedBefore = how.continues ? replaced.size : 0;
  const counts: ImportCounts = { created: 0, updated: 0, unchanged: 0, removed: 0 };
  for (const [securityId, row] of s.rows) {
    const previous = positions.get(securityId) ?? replaced.get(securityId);
    replaced.delete(securityId);
    const next: Position = {
      securityId,
      quantity: row.quantity,
      costBasis: row.costBasis !== undefined ? row.costBasis : (previous?.costBasis ?? null),
      currency: row.currency !== undefined ? row.currency : (previous?.currency ?? null),
    };
    if (previous === undefined) counts.created++;
    else if (samePosition(previous, next)) counts.unchanged++;
    else counts.updated++;
    positions.set(securityId, next);
  }
  // An earlier call counted what it replaced as removed; a restated one is not removed after all.
  counts.removed = replaced.size - replacedBefore;
  const changed =
    positions.size !== before.size ||
    [...positions.values()].some((p) => {
      const old = before.get(p.securityId);
      return old === undefined || !samePosition(old, p);
    });
  if (!changed && !how.more) return { ref: s.ref, counts, changed, write: undefined };
  const currencies = new Set(how.continues ? (stored?.currencies ?? []) : []);
  for (const c of s.currencies.values()) currencies.add(c);
  return {
    ref: s.ref,
    counts,
    changed,
    write: {
      ...s.ref,
      positions: [...positions.values()],
      currencies: [...currencies].sort(),
      updatedAt: changed ? how.updatedAt : (stored?.updatedAt ?? how.updatedAt),
      jobId: how.jobId,
      ...(how.more ? { replaced: [...replaced.values()] } : {}),
    },
  };
}
