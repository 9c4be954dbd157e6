import { describe, expect, it } from "vitest";
import { Logger } from "../../logging";
import type { DocumentProjection } from "../../domain/replica/projection";
import type { ReplicaStore } from "../../ports/replica-store";
import { ProjectChanges } from "./project-changes";

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

describe("ProjectChanges", () => {
  it("applies a batch in feed order, in transactions of bounded rows; unreadable documents are logged and left out", async () => {
    const applied: DocumentProjection[][] = [];
    const store: ReplicaStore = {
      apply: (part) => {
        applied.push([...part]);
        return Promise.resolve({ applied: part.length, unchanged: 0 });
      },
      contents: () => Promise.reject(new Error("not used")),
    };
    const errors: unknown[] = [];
    const use = new ProjectChanges({
      store,
      log: new Logger("debug", (level, line) => {
        if (level === "error") {
          const { message, source, id, reason } = JSON.parse(line) as Record<string, unknown>;
          errors.push([message, { source, id, reason }]);
        }
      }),
      maxRowsPerTransaction: 2500,
    });
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
        { id: "broken", docType: "snapshot", _lsn: 1 },
        header,
      ],
    });
    expect(result).toEqual({ applied: 4, unchanged: 0, skipped: 1 });
    // Two chunks fit in 2,500 rows; the third and the header follow, in that order.
    expect(applied.map((part) => part.map((p) => p.groups[0]?.key))).toEqual([
      [
        { portfolio_id: "p1", date: "2024-01-01", run_id: "run", chunk: 0 },
        { portfolio_id: "p1", date: "2024-01-01", run_id: "run", chunk: 1 },
      ],
      [
        { portfolio_id: "p1", date: "2024-01-01", run_id: "run", chunk: 2 },
        { portfolio_id: "p1", date: "2024-01-01" },
      ],
    ]);
    expect(errors).toEqual([
      [
        "replica: a stored document cannot be projected and is left out",
        { source: "positions", id: "broken", reason: expect.stringContaining("portfolioId") as string },
      ],
    ]);
  });
});
