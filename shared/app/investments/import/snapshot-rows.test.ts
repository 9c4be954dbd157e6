import { describe, expect, it } from "vitest";
import type { PositionImport, PositionSnapshot } from "../../../domain/position";
import { nextSnapshot, type SnapshotRows } from "./snapshot-rows";

const ref = { portfolioId: "P", date: "2024-01-31" };
const rows = (...records: [string, Partial<PositionImport>][]): SnapshotRows => ({
  ref,
  rows: new Map(
    records.map(([id, r]) => [id, { portfolioId: "P", securityId: id, date: ref.date, quantity: 1, ...r }]),
  ),
  currencies: new Map(records.map(([id]) => [id, "EUR"])),
});
const stored = (over: Partial<PositionSnapshot> = {}): PositionSnapshot => ({
  ...ref,
  positions: [
    { securityId: "A", quantity: 1, costBasis: 100, currency: "EUR" },
    { securityId: "B", quantity: 1, costBasis: null, currency: null },
    { securityId: "C", quantity: 1, costBasis: null, currency: null },
  ],
  currencies: ["EUR"],
  updatedAt: "2024-01-31T00:00:00.000Z",
  jobId: "job_old",
  ...over,
});
const how = { jobId: "job_new", updatedAt: "2024-02-01T00:00:00.000Z", continues: false, more: false };

describe("nextSnapshot: what one import call does to one portfolio-date", () => {
  it("replaces the stored snapshot: a position it lacks is removed and counted", () => {
    const next = nextSnapshot(rows(["A", {}], ["B", {}]), stored(), how);
    expect(next.counts).toEqual({ created: 0, updated: 0, unchanged: 2, removed: 1 });
    expect(next.changed).toBe(true);
    expect(next.write?.positions.map((p) => p.securityId)).toEqual(["A", "B"]);
    expect(next.write).toMatchObject({ jobId: "job_new" });
    expect(next.write).not.toHaveProperty("replaced");
  });

  it("the same snapshot again changes and writes nothing", () => {
    const next = nextSnapshot(rows(["A", {}], ["B", {}], ["C", {}]), stored(), how);
    expect(next).toMatchObject({ changed: false, write: undefined });
    expect(next.counts).toEqual({ created: 0, updated: 0, unchanged: 3, removed: 0 });
  });

  it("a record without costBasis or currency keeps the stored ones; null clears them", () => {
    const kept = nextSnapshot(rows(["A", {}]), stored(), how);
    expect(kept.write?.positions[0]).toEqual({ securityId: "A", quantity: 1, costBasis: 100, currency: "EUR" });
    const cleared = nextSnapshot(rows(["A", { costBasis: null, currency: null }]), stored(), how);
    expect(cleared.write?.positions[0]).toEqual({ securityId: "A", quantity: 1, costBasis: null, currency: null });
    expect(cleared.counts).toMatchObject({ updated: 1, removed: 2 });
    const created = nextSnapshot(rows(["D", {}]), stored(), how);
    expect(created.write?.positions).toEqual([{ securityId: "D", quantity: 1, costBasis: null, currency: null }]);
  });

  it("a file's later call adds to what its earlier calls stored, and a replaced position it restates is not removed", () => {
    // The first call (of more) had A only: B and C replaced, kept aside with the job.
    const first = nextSnapshot(rows(["A", {}]), stored(), { ...how, more: true });
    expect(first.counts).toEqual({ created: 0, updated: 0, unchanged: 1, removed: 2 });
    expect(first.write?.replaced?.map((p) => p.securityId)).toEqual(["B", "C"]);
    // The last call restates B (unchanged) and adds D.
    const last = nextSnapshot(rows(["B", {}], ["D", {}]), first.write, { ...how, continues: true });
    expect(last.counts).toEqual({ created: 1, updated: 0, unchanged: 1, removed: -1 });
    expect(last.write?.positions.map((p) => p.securityId)).toEqual(["A", "B", "D"]);
    expect(last.write).not.toHaveProperty("replaced");
    // Over the file: 2 unchanged, 1 created, 1 removed (C).
  });

  it("a call that is not the file's last stores the snapshot with its job even unchanged, but marks nothing", () => {
    const next = nextSnapshot(rows(["A", {}], ["B", {}], ["C", {}]), stored(), { ...how, more: true });
    expect(next.changed).toBe(false);
    expect(next.write).toMatchObject({ jobId: "job_new", replaced: [], updatedAt: "2024-01-31T00:00:00.000Z" });
  });
});
