import Decimal from "decimal.js";
import { describe, expect, it } from "vitest";
import { decimalText } from "./column-values";
import { project } from "./project-document";
import type { DocumentProjection, Skipped } from "./projection";
import { numberKinds } from "./table-types";

const projected = (result: DocumentProjection | Skipped): DocumentProjection => {
  if ("skipped" in result) throw new Error(`skipped: ${JSON.stringify(result)}`);
  return result;
};
const rowsOf = (p: DocumentProjection, table: string) =>
  p.groups.filter((g) => g.table.name === table).flatMap((g) => g.rows);

const system = { _rid: "r", _etag: '"e"', _ts: 1_700_000_000, _lsn: 42 };

describe("replica projection: one stored document → the rows it owns", () => {
  it("a portfolio gives its row and every member row, keyed so that a dropped member goes too", () => {
    const p = projected(
      project("portfolios", {
        ...system,
        id: "p1",
        docType: "portfolio",
        name: "Growth",
        code: "GRO",
        clientId: "c1",
        baseCurrency: "EUR",
        type: "composite",
        status: "active",
        memberIds: ["a", "b"],
        totalValue: 1234.56,
        latestValuationDate: "2024-03-01",
        createdAt: "2024-01-01T00:00:00.000Z",
        updatedAt: "2024-03-01T10:00:00.123Z",
        valuationVersion: "internal",
      }),
    );
    expect(rowsOf(p, "portfolios")).toEqual([
      {
        id: "p1",
        name: "Growth",
        code: "GRO",
        client_id: "c1",
        base_currency: "EUR",
        type: "composite",
        status: "active",
        total_value: "1234.56",
        latest_valuation_date: "2024-03-01",
        created_at: "2024-01-01T00:00:00.000Z",
        updated_at: "2024-03-01T10:00:00.123Z",
      },
    ]);
    const members = p.groups.find((g) => g.table.name === "portfolio_members");
    expect(members?.key).toEqual({ portfolio_id: "p1" });
    expect(members?.rows).toEqual([
      { portfolio_id: "p1", member_id: "a" },
      { portfolio_id: "p1", member_id: "b" },
    ]);
    expect(p.version).toEqual({ docKey: expect.stringMatching(/^[0-9a-f]{64}$/), lsn: 42, ts: 1_700_000_000 });
  });

  it("a position snapshot owns every row of its portfolio-date (a replaced snapshot's old rows are removed)", () => {
    const p = projected(
      project("positions", {
        ...system,
        id: "snap|2024-03-01",
        docType: "snapshot",
        portfolioId: "p1",
        date: "2024-03-01",
        positions: [{ securityId: "s1", quantity: 0.1, costBasis: null, currency: null }],
        currencies: ["EUR"],
        updatedAt: "2024-03-01T00:00:00.000Z",
        recorded: {
          version: 3,
          at: "2024-03-02T10:00:00.000Z",
          by: "feed:f1",
          requestId: null,
          jobId: "job_1",
          change: "updated",
        },
      }),
    );
    expect(p.groups.map((g) => g.table.name)).toEqual(["positions", "positions_versions"]);
    expect(p.groups[0]?.key).toEqual({ portfolio_id: "p1", date: "2024-03-01" });
    const row = {
      portfolio_id: "p1",
      security_id: "s1",
      date: "2024-03-01",
      quantity: "0.1",
      cost_basis: null,
      currency: null,
    };
    expect(p.groups[0]?.rows).toEqual([row]);
    // Its version: the open rows of version 3 (never written over a closed version), closing version 2's.
    expect(p.groups[1]).toMatchObject({
      key: { portfolio_id: "p1", date: "2024-03-01", version: 3 },
      rows: [
        { ...row, version: 3, recorded_from: "2024-03-02T10:00:00.000Z", recorded_to: null, recorded_by: "feed:f1" },
      ],
      keepClosed: true,
    });
    expect(p.closes).toMatchObject([
      { key: { portfolio_id: "p1", date: "2024-03-01" }, version: 2, at: "2024-03-02T10:00:00.000Z" },
    ]);
  });

  it("a closed copy from the versions container gives its version's closed rows; open copies are left out", () => {
    const snapshot = {
      id: "snap|2024-03-01",
      docType: "snapshot",
      portfolioId: "p1",
      date: "2024-03-01",
      positions: [{ securityId: "s1", quantity: 2, costBasis: null, currency: null }],
      currencies: ["EUR"],
      updatedAt: "2024-03-01T00:00:00.000Z",
      recorded: {
        version: 2,
        at: "2024-03-02T10:00:00.000Z",
        by: "api-client",
        requestId: "r",
        jobId: "j",
        change: "updated",
      },
    };
    const copy = {
      ...system,
      id: "snap|2024-03-01|v2",
      key: "snapshot|p1",
      docType: "version",
      kind: "snapshot",
      recordId: "snap|2024-03-01",
      version: 2,
      recordedFrom: "2024-03-02T10:00:00.000Z",
      recordedTo: "2024-03-05T08:00:00.000Z",
      seq: "",
      doc: snapshot,
    };
    const p = projected(project("versions", copy));
    expect(p.overwrites).toBe(true);
    expect(p.groups).toEqual([
      {
        table: expect.objectContaining({ name: "positions_versions" }),
        key: { portfolio_id: "p1", date: "2024-03-01", version: 2 },
        rows: [
          {
            portfolio_id: "p1",
            security_id: "s1",
            date: "2024-03-01",
            quantity: "2",
            cost_basis: null,
            currency: null,
            version: 2,
            recorded_from: "2024-03-02T10:00:00.000Z",
            recorded_to: "2024-03-05T08:00:00.000Z",
            recorded_by: "api-client",
          },
        ],
      },
    ]);
    expect(project("versions", { ...copy, recordedTo: null })).toEqual({ skipped: "not-projected" });
  });

  it("a valuation header gives the valuation row and names its run; a chunk stages its holdings under that run, unversioned", () => {
    const header = projected(
      project("positions", {
        ...system,
        id: "val|2024-03-01",
        docType: "valuation",
        portfolioId: "p1",
        date: "2024-03-01",
        baseCurrency: "EUR",
        totalValue: 10.5,
        complete: false,
        unvaluedCount: 1,
        valuedAt: "2024-03-01T12:00:00.000Z",
        version: "v",
        runId: "run-1",
        chunks: 1,
      }),
    );
    expect(rowsOf(header, "valuations")).toEqual([
      {
        portfolio_id: "p1",
        date: "2024-03-01",
        base_currency: "EUR",
        total_value: "10.5",
        complete: 0,
        unvalued_count: 1,
        valued_at: "2024-03-01T12:00:00.000Z",
      },
    ]);
    expect(header.holdingsRun).toEqual({ portfolioId: "p1", date: "2024-03-01", runId: "run-1", version: "v" });

    const chunk = projected(
      project("positions", {
        ...system,
        id: "val|2024-03-01|run-1|0",
        docType: "valuation-chunk",
        portfolioId: "p1",
        version: "v",
        holdings: [
          {
            securityId: "s1",
            isin: null,
            name: "S1",
            assetClass: "equity",
            quantity: 3,
            price: 3.5,
            priceDate: "2024-02-29",
            priceType: "close",
            priceCurrency: "EUR",
            fxRate: 1,
            fxMethod: "cross",
            fxPivot: "USD",
            marketValue: 10.5,
            weight: 1,
            unvalued: null,
          },
          {
            securityId: "s2",
            isin: null,
            name: "S2",
            assetClass: "equity",
            quantity: 1,
            price: null,
            priceDate: null,
            priceType: null,
            priceCurrency: null,
            fxRate: null,
            fxMethod: null,
            fxPivot: null,
            marketValue: null,
            weight: null,
            unvalued: "MISSING_PRICE",
          },
        ],
      }),
    );
    expect(chunk.version).toBeUndefined();
    expect(chunk.groups[0]?.table.name).toBe("holding_chunks");
    expect(chunk.groups[0]?.key).toEqual({ portfolio_id: "p1", date: "2024-03-01", run_id: "run-1", chunk: 0 });
    expect(chunk.groups[0]?.rows[0]).toMatchObject({
      ord: 0,
      run_version: "v",
      security_id: "s1",
      quantity: "3",
      price: "3.5",
      fx_rate: "1",
      fx_method: "cross",
      fx_pivot: "USD",
      market_value: "10.5",
      weight: "1",
      unvalued: null,
    });
    expect(chunk.groups[0]?.rows[1]).toMatchObject({
      security_id: "s2",
      market_value: null,
      unvalued: "MISSING_PRICE",
    });
  });

  it("jobs flatten their counts, exceptions their entity", () => {
    const job = projected(
      project("jobs", {
        ...system,
        id: "job_1",
        docType: "job",
        source: "api",
        dataType: "prices",
        feedId: null,
        fileName: null,
        status: "completed",
        counts: { received: 3, accepted: 2, rejected: 1 },
        errors: [],
        startedAt: "2024-01-01T00:00:00.000Z",
        completedAt: "2024-01-01T00:00:01.000Z",
      }),
    );
    expect(rowsOf(job, "jobs")[0]).toMatchObject({
      received: 3,
      accepted: 2,
      rejected: 1,
      removed: null,
      data_type: "prices",
      feed_id: null,
      reprocess_of: null,
      file_container: null,
    });
    // A feed's job processed again from a quarantined file: where its own file is kept, and which job it redid.
    const redone = projected(
      project("jobs", {
        ...system,
        id: "job_2",
        docType: "job",
        source: "blob",
        dataType: "securities",
        feedId: "fd_1",
        fileName: "securities.csv",
        status: "completed",
        counts: { received: 3, accepted: 3, rejected: 0, removed: 0 },
        errors: [],
        startedAt: "2024-01-01T00:00:00.000Z",
        completedAt: "2024-01-01T00:00:01.000Z",
        reprocessOf: "job_1",
        file: { container: "archive", name: "fd_1/securities.csv", sha256: "ab".repeat(32) },
      }),
    );
    expect(rowsOf(redone, "jobs")[0]).toMatchObject({
      removed: 0,
      duplicate_of: null,
      reprocess_of: "job_1",
      file_container: "archive",
      file_path: "fd_1/securities.csv",
      file_sha256: "ab".repeat(32),
    });
    const exception = projected(
      project("exceptions", {
        ...system,
        id: "exc_1",
        docType: "exception",
        type: "MISSING_PRICE",
        severity: "warning",
        message: "m",
        entity: { type: "security", id: "s1" },
        jobId: null,
        status: "resolved",
        createdAt: "2024-01-01T00:00:00.000Z",
        resolvedAt: "2024-01-02T00:00:00.000Z",
      }),
    );
    expect(rowsOf(exception, "exceptions")[0]).toMatchObject({
      entity_type: "security",
      entity_id: "s1",
      status: "resolved",
      resolved_at: "2024-01-02T00:00:00.000Z",
    });
  });

  it("leaves out what the replica does not show, and says why a document it cannot read is left out", () => {
    expect(project("portfolios", { ...system, id: "code|GRO", docType: "portfolio-code", portfolioId: "p1" })).toEqual({
      skipped: "not-projected",
    });
    expect(
      project("prices", { ...system, id: "latest", docType: "price-latest", securityId: "s1", points: [] }),
    ).toEqual({ skipped: "not-projected" });
    expect(project("positions", { ...system, id: "stale|2024-01-01", docType: "stale" })).toEqual({
      skipped: "not-projected",
    });
    expect(
      project("prices", {
        ...system,
        id: "x",
        docType: "price",
        securityId: "s1",
        date: "2024-01-01",
        type: "close",
        currency: "EUR",
        source: "s",
      }),
    ).toMatchObject({
      // Rejected: no rows, but its version, so that the feed moves past it (the caller reports it).
      groups: [],
      rejected: "prices.price is missing",
      origin: { id: "x", docType: "price", partitionKey: "s1" },
      version: { lsn: 42 },
    });
    const { _lsn: _omit, ...withoutLsn } = system;
    expect(
      project("securities", {
        ...withoutLsn,
        id: "s1",
        docType: "security",
        name: "n",
        assetClass: "equity",
        currency: "EUR",
        status: "active",
        createdAt: "2024-01-01T00:00:00Z",
        updatedAt: "2024-01-01T00:00:00Z",
      }),
    ).toEqual({
      skipped: "unreadable",
      reason: "the change has no _lsn",
    });
  });

  it("a number's decimal text is the one exact decimal arithmetic gives, for numbers that print plainly and those that do not", () => {
    const Exact = Decimal.clone({ precision: 100, toExpNeg: -100, toExpPos: 100 });
    const reference = (n: number, type: (typeof numberKinds)[keyof typeof numberKinds]) => {
      const exact = new Exact(String(n));
      const fitted = exact.toDecimalPlaces(type.scale, Decimal.ROUND_HALF_EVEN);
      if (fitted.abs().gte(new Exact(10).pow(type.precision - type.scale))) return undefined;
      return { text: fitted.isZero() ? "0" : fitted.toFixed(), rounded: !fitted.eq(exact) };
    };
    let seed = 7;
    const random = () => ((seed = (seed * 16807) % 2147483647) - 1) / 2147483646;
    const numbers = [
      0,
      -0,
      1,
      -1,
      0.5,
      1e-7,
      1.5e-9,
      123456789.123456,
      1e20,
      1e21,
      Number.MAX_SAFE_INTEGER * 1000,
      1e-300,
    ];
    for (let i = 0; i < 5000; i++) {
      const magnitude = 10 ** Math.floor(random() * 44 - 22);
      numbers.push((random() - 0.5) * magnitude, Math.round(random() * magnitude) / 100);
    }
    for (const type of Object.values(numberKinds))
      for (const n of numbers)
        expect(decimalText(n, type), `${n} as decimal(${type.precision}, ${type.scale})`).toEqual(reference(n, type));
  });

  it("numbers become the exact decimal text of the API's number; a value beyond its column, or a price that would read as 0, rejects the document", () => {
    expect(decimalText(0.1 + 0.2, numberKinds.money)).toEqual({ text: "0.3", rounded: true });
    expect(decimalText(0.000012345678, numberKinds.quantity)).toEqual({ text: "0.000012345678", rounded: false });
    expect(decimalText(1e15, numberKinds.money)).toEqual({ text: "1000000000000000", rounded: false });
    expect(decimalText(-1.5e-7, numberKinds.price)).toEqual({ text: "-0.00000015", rounded: false });
    expect(decimalText(123.456789012345, numberKinds.price)).toEqual({ text: "123.456789012345", rounded: false });
    expect(decimalText(1e30, numberKinds.money)).toBeUndefined();
    const holding = {
      securityId: "s",
      isin: null,
      quantity: 1,
      price: 1,
      priceDate: null,
      priceType: null,
      priceCurrency: null,
      fxRate: 1,
      marketValue: 1,
      weight: null,
    };
    const chunk = (h: Record<string, unknown>) =>
      project("positions", {
        ...system,
        id: "val|2024-01-01|r|0",
        docType: "valuation-chunk",
        portfolioId: "p1",
        holdings: [{ ...holding, ...h }],
      });
    // Null would say "could not be valued": not what the document says.
    expect(chunk({ marketValue: 1e30 })).toMatchObject({
      rejected: "holding_chunks.market_value 1e+30 is beyond decimal(38, 8)",
      groups: [],
    });
    expect(chunk({ price: 1.5e-29 })).toMatchObject({
      rejected: "holding_chunks.price 1.5e-29 has more than 12 decimal places and would read as 0",
    });
    expect(projected(chunk({ price: 5e-324 })).rejected).toContain("would read as 0");
    // Money and quantities round (a warning), as 0 is a true amount.
    const rounded = projected(chunk({ quantity: 1e-13, price: 1.0000000000001 }));
    expect(rounded.rejected).toBeUndefined();
    expect(rounded.groups[0]?.rows[0]).toMatchObject({ quantity: "0", price: "1" });
    expect(rounded.warnings).toEqual([
      "holding_chunks.quantity 1e-13 rounded to 12 places",
      "holding_chunks.price 1.0000000000001 rounded to 12 places",
    ]);
  });

  it("a document whose projection fails in a way nobody foresaw is rejected too: the feed behind it is never stopped", () => {
    const doc: Record<string, unknown> = { ...system, id: "s1", docType: "security" };
    Object.defineProperty(doc, "name", {
      enumerable: true,
      get: () => {
        throw new Error("a surprise");
      },
    });
    expect(project("securities", doc)).toMatchObject({
      rejected: "the projection failed: a surprise",
      groups: [],
      version: { lsn: 42 },
    });
  });

  it("a version the replica cannot read (its recorded instant, a closed copy without its record) rejects the document, never the feed", () => {
    const security = {
      ...system,
      id: "s1",
      docType: "security",
      name: "One",
      assetClass: "equity",
      currency: "EUR",
      status: "active",
      createdAt: "2024-03-01T00:00:00.000Z",
      updatedAt: "2024-03-01T00:00:00.000Z",
      recorded: { version: 2, at: "yesterday-ish", by: "c1", requestId: null, jobId: null, change: "updated" },
    };
    expect(project("securities", security)).toMatchObject({
      rejected: expect.stringMatching(/^the projection failed: /) as string,
      groups: [],
      version: { lsn: 42 },
    });
    expect(projected(project("securities", security)).closes).toBeUndefined();
    expect(
      project("versions", {
        ...system,
        id: "s1|v1",
        key: "security|s1",
        docType: "version",
        kind: "security",
        version: 1,
        recordedFrom: "2024-03-01T00:00:00.000Z",
        recordedTo: "2024-03-02T00:00:00.000Z",
      }),
    ).toMatchObject({ rejected: expect.stringMatching(/doc/) as string, groups: [], version: { lsn: 42 } });
  });

  it("text no engine of ours stores alike (NUL, an unpaired surrogate) rejects the document; other Unicode is kept", () => {
    const security = (name: string) =>
      project("securities", {
        ...system,
        id: "s1",
        docType: "security",
        name,
        assetClass: "equity",
        currency: "EUR",
        status: "active",
        createdAt: "2024-01-01T00:00:00Z",
        updatedAt: "2024-01-01T00:00:00Z",
      });
    for (const name of ["a\u0000b", "\ud800", "x\udc00"])
      expect(security(name), JSON.stringify(name)).toMatchObject({
        rejected: "securities.name holds a NUL character or an unpaired surrogate",
        version: { lsn: 42 },
      });
    expect(projected(security("Café 😀 \ufffe")).groups[0]?.rows[0]?.name).toBe("Café 😀 \ufffe");
  });
});
