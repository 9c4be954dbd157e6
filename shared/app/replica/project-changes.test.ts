import { describe, expect, it } from "vitest";
import type { DataQualityCandidate } from "../../domain/data-quality-exception";
import type { DocumentProjection } from "../../domain/replica/projection";
import { Logger } from "../../logging";
import { ReplicaRejected, type ReplicaStore } from "../../ports/replica-store";
import { ProjectChanges } from "./project-changes";
import { storable } from "./replica-rejection";

const chunk = (n: number, holdings: number) => ({
  id: `val|2024-01-01|run|${n}`,
  docType: "valuation-chunk",
  portfolioId: "p1",
  version: "v",
  holdings: Array.from({ length: holdings }, (_, i) => ({
    securityId: `s${n}-${i}`,
    isin: null,
    quantity: 1,
    price: 1,
    priceDate: "2024-01-01",
    priceType: "close",
    priceCurrency: "EUR",
    fxRate: 1,
    marketValue: 1,
    weight: 0.1,
  })),
});

const security = (n: number, name = `Security ${n}`) => ({
  id: `sec_${n}`,
  docType: "security",
  name,
  assetClass: "equity",
  currency: "EUR",
  status: "active",
  createdAt: "2024-01-01T00:00:00.000Z",
  updatedAt: "2024-01-01T00:00:00.000Z",
  _lsn: n,
  _ts: 1_700_000_000,
});

/** A store that keeps what it applied, and refuses (as an engine would) any part holding a name it is told to refuse. */
function fakeStore(refuse: (p: DocumentProjection) => boolean = () => false, fail?: () => Error) {
  const applied: DocumentProjection[][] = [];
  const store: ReplicaStore = {
    apply: (part) => {
      if (fail !== undefined) return Promise.reject(fail());
      if (part.some(refuse))
        return Promise.reject(new ReplicaRejected('invalid byte sequence for encoding "UTF8": 0xfe'));
      applied.push([...part]);
      return Promise.resolve({ applied: part.length, unchanged: 0 });
    },
    contents: () => Promise.reject(new Error("not used")),
  };
  return { store, applied };
}

function setUp(store: ReplicaStore, maxRowsPerTransaction?: number) {
  const opened: DataQualityCandidate[] = [];
  const errors: Record<string, unknown>[] = [];
  const use = new ProjectChanges({
    store,
    log: new Logger("debug", (level, line) => {
      if (level === "error") errors.push(JSON.parse(line) as Record<string, unknown>);
    }),
    exceptions: {
      open: (candidates) => {
        opened.push(...candidates);
        return Promise.resolve(candidates.length);
      },
    },
    ...(maxRowsPerTransaction !== undefined ? { maxRowsPerTransaction } : {}),
  });
  return { use, opened, errors };
}

const names = (part: DocumentProjection[]) =>
  part.map((p) => (p.rejected !== undefined ? `rejected ${p.origin.id}` : p.origin.id));

describe("ProjectChanges", () => {
  it("applies a batch in feed order, in transactions of bounded rows; a document it cannot read is rejected with an exception, its version still recorded", async () => {
    const { store, applied } = fakeStore();
    const { use, opened, errors } = setUp(store, 2500);
    const header = {
      id: "val|2024-01-01",
      docType: "valuation",
      portfolioId: "p1",
      date: "2024-01-01",
      baseCurrency: "EUR",
      totalValue: 3,
      valuedAt: "2024-01-01T00:00:00.000Z",
      version: "v",
      runId: "run",
      chunks: 3,
      _lsn: 9,
      _ts: 1,
    };
    const result = await use.execute({
      source: "positions",
      documents: [
        chunk(0, 1000),
        chunk(1, 1000),
        chunk(2, 1000),
        { id: "snap|2024-01-01", docType: "snapshot", portfolioId: "p1", _lsn: 1 },
        header,
        { id: "stale|2024-01-01", docType: "stale", _lsn: 2 },
      ],
    });
    expect(result).toEqual({ applied: 5, unchanged: 0, skipped: 1, rejected: 1 });
    // Two chunks fit in 2,500 rows; the third, the rejected snapshot (its version only) and the header follow, in that order.
    expect(applied.map(names)).toEqual([
      ["val|2024-01-01|run|0", "val|2024-01-01|run|1"],
      ["val|2024-01-01|run|2", "rejected snap|2024-01-01", "val|2024-01-01"],
    ]);
    expect(applied[1]?.[1]).toMatchObject({ groups: [], version: { lsn: 1 } });
    expect(opened).toEqual([
      {
        key: expect.stringMatching(/^REPLICA_REJECTED\|positions\|[0-9a-f]{64}\|1$/) as string,
        type: "REPLICA_REJECTED",
        severity: "error",
        message: expect.stringMatching(
          /^The SQL replica cannot hold snapshot p1\|snap\|2024-01-01: date: .*positions: .*This version is left out of the replica/,
        ) as string,
        entity: { type: "snapshot", id: "p1|snap|2024-01-01" },
      },
    ]);
    expect(errors.map((e) => [e.message, e.id])).toEqual([
      ["replica: a document the replica cannot hold is skipped", "snap|2024-01-01"],
    ]);
  });

  it("a document whose value the engine refuses is found by halving the batch, reported and skipped; every other document is applied, in order", async () => {
    const poisoned = new Set(["sec_37", "sec_90"]);
    const { store, applied } = fakeStore((p) => p.rejected === undefined && poisoned.has(p.origin.id));
    const { use, opened } = setUp(store);
    const documents = Array.from({ length: 100 }, (_, i) => security(i + 1));
    const result = await use.execute({ source: "securities", documents });
    expect(result).toEqual({ applied: 100, unchanged: 0, skipped: 0, rejected: 2 });
    const order = applied.flat().map((p) => (p.rejected !== undefined ? `rejected ${p.origin.id}` : p.origin.id));
    expect(order).toEqual(documents.map((d) => (poisoned.has(d.id) ? `rejected ${d.id}` : d.id)));
    // Batching kept: a few transactions, not one per document.
    expect(applied.length).toBeLessThanOrEqual(16);
    expect(opened.map((c) => [c.entity, c.message])).toEqual([
      [
        { type: "security", id: "sec_37" },
        `The SQL replica cannot hold security sec_37: invalid byte sequence for encoding "UTF8": 0xfe. This version is left out of the replica (it keeps the previous one, if any); a corrected write replaces it.`,
      ],
      [{ type: "security", id: "sec_90" }, expect.stringContaining("security sec_90: invalid byte sequence") as string],
    ]);
  });

  it("a failure that is not the data's (the database unreachable, a deadlock) throws, so that the batch comes again; nothing is reported", async () => {
    const { store } = fakeStore(undefined, () =>
      Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }),
    );
    const { use, opened } = setUp(store);
    await expect(use.execute({ source: "securities", documents: [security(1), security(2)] })).rejects.toThrow(
      "ECONNREFUSED",
    );
    expect(opened).toEqual([]);
  });

  it("a value no column can hold (NUL, a number beyond its column) is rejected before the engine sees it; a rejected REPLICA_REJECTED exception is only logged", async () => {
    const { store, applied } = fakeStore();
    const { use, opened, errors } = setUp(store);
    const result = await use.execute({ source: "securities", documents: [security(1, "A\u0000B"), security(2)] });
    expect(result.rejected).toBe(1);
    expect(applied.map(names)).toEqual([["rejected sec_1", "sec_2"]]);
    expect(opened[0]?.message).toContain("name holds a NUL character or an unpaired surrogate");

    const exception = {
      id: "exc_1",
      docType: "exception",
      type: "REPLICA_REJECTED",
      severity: "error",
      message: "m",
      entity: { type: "security", id: "x" },
      status: "open",
      createdAt: "not a timestamp",
      _lsn: 3,
    };
    await use.execute({ source: "exceptions", documents: [exception] });
    expect(opened).toHaveLength(1);
    expect(errors.at(-1)).toMatchObject({ id: "exc_1", reason: "exceptions.created_at is not a timestamp" });
  });

  it("text from a refused document is made storable before it goes into an exception", () => {
    expect(storable("a\u0000b\ud800c\uffff")).toBe("a\\u0000b\\ud800c\\uffff");
    expect(storable("😀")).toBe("😀");
    expect(storable("x".repeat(400), 10)).toBe(`${"x".repeat(9)}…`);
  });
});
