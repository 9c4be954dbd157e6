import { beforeAll, describe, expect, it } from "vitest";
import { adminToken, call, useOwnRuntime } from "./http";
import {
  createPortfolio,
  createSecurities,
  eventsWhere,
  exceptionsFor,
  getPortfolio,
  imported,
  listAll,
  price,
  securityRecord,
  uid,
  whenValued,
} from "./investment-fixtures";

useOwnRuntime();

// The event outbox, read through the product's own Cosmos adapter: refresh_job.completed,
// portfolio.valued, transaction.settled (once) and exception.created, on a runtime of its own so
// that no other file's import adds events to what it counts.
describe("event outbox", () => {
  let token: string;
  beforeAll(async () => {
    token = await adminToken();
  });

  const iso = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

  it("refresh_job.completed: one per import, with jobId, source, dataType, counts, startedAt, completedAt", async () => {
    const sec = securityRecord();
    const first = await imported(token, "securities", { securities: [sec] });
    const second = await imported(token, "securities", { securities: [sec, securityRecord()] });

    for (const [result, counts] of [
      [first, { received: 1, accepted: 1, rejected: 0, removed: 0 }],
      [second, { received: 2, accepted: 2, rejected: 0, removed: 0 }],
    ] as const) {
      const events = await eventsWhere("refresh_job.completed", (d) => d.jobId === result.jobId);
      expect(events).toHaveLength(1);
      const event = events[0]!;
      expect(event.event).toBe("refresh_job.completed");
      expect(event.timestamp).toMatch(iso);
      expect(event.data).toEqual({
        jobId: result.jobId,
        source: "api",
        dataType: "securities",
        counts,
        startedAt: expect.stringMatching(iso),
        completedAt: expect.stringMatching(iso),
      });
      const job = (await call("GET", `/api/v1/jobs/${result.jobId}`, { token })).body.data;
      expect(event.data.startedAt).toBe(job.startedAt);
      expect(event.data.completedAt).toBe(job.completedAt);
      expect(event.timestamp).toBe(job.completedAt);
    }
  });

  it("portfolio.valued: { portfolioId, valuationDate, totalValue, currency, complete, unvaluedCount, asAt } on each revaluation, none when nothing changed", async () => {
    const portfolio = await createPortfolio(token, { baseCurrency: "EUR" });
    const a = securityRecord();
    const b = securityRecord();
    const [aId, bId] = await createSecurities(token, [a, b]);
    await imported(token, "prices", {
      prices: [price(a.isin, "2019-01-04", 12.5), price(b.isin, "2019-01-04", 3.333)],
    });
    const positions = {
      positions: [
        { portfolioId: portfolio.id, securityId: aId, date: "2019-01-04", quantity: 8 },
        { portfolioId: portfolio.id, securityId: bId, date: "2019-01-04", quantity: 10 },
      ],
    };
    await imported(token, "positions", positions);
    await whenValued(token, portfolio.id);
    // 8 × 12.50 = 100.00; 10 × 3.333 = 33.33; total 133.33
    let events = await eventsWhere("portfolio.valued", (d) => d.portfolioId === portfolio.id);
    expect(events).toHaveLength(1);
    expect(events[0]!.data).toEqual({
      portfolioId: portfolio.id,
      valuationDate: "2019-01-04",
      totalValue: 133.33,
      currency: "EUR",
      complete: true,
      unvaluedCount: 0,
      asAt: expect.stringMatching(iso),
    });
    expect(events[0]!.timestamp).toMatch(iso);
    expect(await getPortfolio(token, portfolio.id)).toMatchObject({
      totalValue: 133.33,
      latestValuationDate: "2019-01-04",
    });

    // Same positions and same prices again: nothing changed, nothing revalued.
    expect(await imported(token, "positions", positions)).toMatchObject({ unchanged: 2, created: 0, updated: 0 });
    expect(await imported(token, "prices", { prices: [price(a.isin, "2019-01-04", 12.5)] })).toMatchObject({
      unchanged: 1,
    });
    // No valuation left pending by imports that changed nothing (their markers were taken back).
    expect((await getPortfolio(token, portfolio.id)).valuationStatus).toBe("current");
    await whenValued(token, portfolio.id);
    expect(await eventsWhere("portfolio.valued", (d) => d.portfolioId === portfolio.id)).toHaveLength(1);

    // A price change revalues: 8 × 13 = 104.00 + 33.33 = 137.33
    const valued = {
      portfolioId: portfolio.id,
      currency: "EUR",
      complete: true,
      unvaluedCount: 0,
      asAt: expect.stringMatching(iso),
    };
    await imported(token, "prices", { prices: [price(a.isin, "2019-01-04", 13)] });
    await whenValued(token, portfolio.id);
    events = await eventsWhere("portfolio.valued", (d) => d.portfolioId === portfolio.id);
    expect(events.map((e) => e.data)).toEqual([
      { ...valued, valuationDate: "2019-01-04", totalValue: 133.33 },
      { ...valued, valuationDate: "2019-01-04", totalValue: 137.33 },
    ]);
    expect(new Set(events.map((e) => e.id)).size).toBe(2);

    // A new date: the portfolio's latest valuation moves on. 8 × 13 = 104.00
    await imported(token, "positions", {
      positions: [{ portfolioId: portfolio.id, securityId: aId, date: "2019-01-07", quantity: 8 }],
    });
    await whenValued(token, portfolio.id);
    events = await eventsWhere("portfolio.valued", (d) => d.portfolioId === portfolio.id);
    expect(events.at(-1)!.data).toEqual({
      portfolioId: portfolio.id,
      valuationDate: "2019-01-07",
      totalValue: 104,
      currency: "EUR",
      complete: true,
      unvaluedCount: 0,
      asAt: expect.stringMatching(iso),
    });
    expect(await getPortfolio(token, portfolio.id)).toMatchObject({
      totalValue: 104,
      latestValuationDate: "2019-01-07",
    });

    // An earlier date revalued later does not move the portfolio's latest valuation back.
    await imported(token, "positions", {
      positions: [{ portfolioId: portfolio.id, securityId: aId, date: "2019-01-04", quantity: 1 }],
    });
    await whenValued(token, portfolio.id);
    events = await eventsWhere("portfolio.valued", (d) => d.portfolioId === portfolio.id);
    expect(events.at(-1)!.data).toEqual({
      portfolioId: portfolio.id,
      valuationDate: "2019-01-04",
      totalValue: 13,
      currency: "EUR",
      complete: true,
      unvaluedCount: 0,
      asAt: expect.stringMatching(iso),
    });
    expect(await getPortfolio(token, portfolio.id)).toMatchObject({
      totalValue: 104,
      latestValuationDate: "2019-01-07",
    });
  });

  it("transaction.settled: exactly once per transaction, even when the settled record is imported again", async () => {
    const portfolio = await createPortfolio(token);
    const sec = securityRecord();
    const [secId] = await createSecurities(token, [sec]);
    const externalId = uid("settle");
    const record = {
      externalId,
      portfolioId: portfolio.id,
      securityId: secId,
      type: "buy",
      tradeDate: "2019-02-01",
      settlementDate: "2019-02-05",
      quantity: 25,
      price: 4,
      grossAmount: 100,
      fees: 0.5,
      netAmount: 100.5,
      currency: "EUR",
    };
    await imported(token, "transactions", { transactions: [record] });
    const [pending] = await listAll(token, `/api/v1/transactions?portfolioId=${portfolio.id}`);
    expect(pending.status).toBe("pending");
    expect(await eventsWhere("transaction.settled", (d) => d.transactionId === pending.id)).toEqual([]);

    expect(
      await imported(token, "transactions", { transactions: [{ ...record, status: "settled", source: "custodian" }] }),
    ).toMatchObject({ updated: 1 });
    expect(
      await imported(token, "transactions", { transactions: [{ ...record, status: "settled", source: "custodian" }] }),
    ).toMatchObject({ unchanged: 1 });
    // A correction of the settled record (same status) is an update but no second settlement.
    expect(
      await imported(token, "transactions", {
        transactions: [{ ...record, status: "settled", source: "custodian", fees: 0.75, netAmount: 100.75 }],
      }),
    ).toMatchObject({ updated: 1 });

    const events = await eventsWhere("transaction.settled", (d) => d.transactionId === pending.id);
    expect(events).toHaveLength(1);
    expect(events[0]!.data).toEqual({
      transactionId: pending.id,
      portfolioId: portfolio.id,
      securityId: secId,
      settlementDate: "2019-02-05",
      quantity: 25,
      netAmount: 100.5,
      currency: "EUR",
      asAt: expect.stringMatching(iso),
    });
    expect(events[0]!.timestamp).toMatch(iso);

    const [settled] = await listAll(token, `/api/v1/transactions?portfolioId=${portfolio.id}`);
    expect(settled.id).toBe(pending.id);
    expect(settled.statusHistory.map((h: { status: string; source: string | null }) => [h.status, h.source])).toEqual([
      ["pending", null],
      ["settled", "custodian"],
    ]);
    expect(events[0]!.timestamp).toBe(settled.statusHistory[1].at);

    // Settled on creation: announced once as well. Failed and cancelled are never announced.
    const direct = uid("direct");
    const failed = uid("failed");
    await imported(token, "transactions", {
      transactions: [
        { ...record, externalId: direct, status: "settled" },
        { ...record, externalId: failed, status: "failed" },
      ],
    });
    await imported(token, "transactions", { transactions: [{ ...record, externalId: direct, status: "settled" }] });
    const all = await listAll(token, `/api/v1/transactions?portfolioId=${portfolio.id}`);
    const directId = all.find((t) => t.externalId === direct).id;
    const failedId = all.find((t) => t.externalId === failed).id;
    expect(await eventsWhere("transaction.settled", (d) => d.transactionId === directId)).toHaveLength(1);
    expect(await eventsWhere("transaction.settled", (d) => d.transactionId === failedId)).toEqual([]);
  });

  it("exception.created: one per new exception, with exceptionId, type, severity, message and entity", async () => {
    const portfolio = await createPortfolio(token);
    const sec = securityRecord();
    const [secId] = await createSecurities(token, [sec]);
    await imported(token, "positions", {
      positions: [{ portfolioId: portfolio.id, securityId: secId, date: "2019-03-01", quantity: 1 }],
    });
    await whenValued(token, portfolio.id);
    const [exception] = await exceptionsFor(token, "MISSING_PRICE", secId);
    expect(exception).toBeDefined();
    const events = await eventsWhere("exception.created", (d) => d.exceptionId === exception!.id);
    expect(events).toHaveLength(1);
    expect(events[0]!.data).toEqual({
      exceptionId: exception!.id,
      type: "MISSING_PRICE",
      severity: "error",
      message: exception!.message,
      entity: { type: "security", id: secId },
    });
    expect(events[0]!.timestamp).toBe(exception!.createdAt);

    // The condition again: no second exception, no second event.
    await imported(token, "positions", {
      positions: [{ portfolioId: portfolio.id, securityId: secId, date: "2019-03-01", quantity: 2 }],
    });
    await whenValued(token, portfolio.id);
    expect(await exceptionsFor(token, "MISSING_PRICE", secId)).toHaveLength(1);
    expect(await eventsWhere("exception.created", (d) => d.exceptionId === exception!.id)).toHaveLength(1);
  });
});
