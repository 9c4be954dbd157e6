import { beforeAll, describe, expect, it } from "vitest";
import { adminToken, call, useOwnRuntime } from "./http";
import { BOOTSTRAP } from "./runtime";
import {
  createPortfolio,
  createSecurities,
  eventsWhere,
  exceptionsFor,
  holdingsOf,
  imported,
  whenValued,
  price,
  securityRecord,
  type DataQualityException,
} from "./investment-fixtures";

useOwnRuntime();

// The four data-quality exceptions valuation and price imports open: each opens once, the same
// condition again opens no second one, and each can be resolved. Settings of the test runtime:
// STALE_PRICE_DAYS 5, PRICE_JUMP_THRESHOLD 0.25. A runtime of its own: no other file's import revalues its portfolios.
describe("data-quality exceptions", () => {
  let token: string;
  beforeAll(async () => {
    token = await adminToken();
  });

  async function expectOneCreatedEvent(exception: DataQualityException): Promise<void> {
    const events = await eventsWhere("exception.created", (d) => d.exceptionId === exception.id);
    expect(events).toHaveLength(1);
    expect(events[0]?.data).toEqual({
      exceptionId: exception.id,
      type: exception.type,
      severity: exception.severity,
      message: exception.message,
      entity: exception.entity,
    });
  }

  // Field-for-field equality of the single-exception reads with the list is its own test below,
  // so that these checks of the resolve flow stay visible on their own.
  async function expectResolvable(exception: DataQualityException): Promise<void> {
    const path = `/api/v1/exceptions/${exception.id}`;
    const got = await call("GET", path, { token });
    expect(got.status).toBe(200);
    expect(got.body.data).toMatchObject(exception);
    const resolved = await call("PATCH", path, { token, body: { status: "resolved" } });
    expect(resolved.status).toBe(200);
    expect(resolved.body.data).toMatchObject({
      ...exception,
      status: "resolved",
      resolvedAt: expect.stringMatching(/Z$/),
      // A person's resolve names their API client.
      resolvedBy: BOOTSTRAP.id,
      resolution: null,
    });
    expect(resolved.body.data.resolvedAt >= exception.createdAt).toBe(true);
    expect((await call("GET", path, { token })).body.data).toMatchObject({
      status: "resolved",
      resolvedAt: resolved.body.data.resolvedAt,
    });
    const again = await call("PATCH", path, { token, body: { status: "resolved" } });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe("CONFLICT");
    expect((await call("GET", path, { token })).body.data).toMatchObject({
      status: "resolved",
      resolvedAt: resolved.body.data.resolvedAt,
    });
    const listed = (await exceptionsFor(token, exception.type, exception.entity.id)).find((e) => e.id === exception.id);
    expect(listed).toMatchObject({ status: "resolved", resolvedAt: resolved.body.data.resolvedAt });
  }

  it("MISSING_PRICE: a held security without any price on or before the date", async () => {
    const portfolio = await createPortfolio(token);
    const sec = securityRecord();
    const [secId] = await createSecurities(token, [sec]);
    // Only a price after the valuation date exists.
    await imported(token, "prices", { prices: [price(sec.isin, "2017-01-11", 10)] });
    const job = await imported(token, "positions", {
      positions: [{ portfolioId: portfolio.id, securityId: secId, date: "2017-01-10", quantity: 10 }],
    });
    await whenValued(token, portfolio.id);

    const view = await holdingsOf(token, portfolio.id);
    expect(view.holdings).toEqual([
      expect.objectContaining({ securityId: secId, quantity: 10, price: null, marketValue: null, weight: null }),
    ]);
    expect(view.totalValue).toBe(0);

    const opened = await exceptionsFor(token, "MISSING_PRICE", secId);
    expect(opened).toHaveLength(1);
    const exception = opened[0] as DataQualityException;
    expect(exception).toMatchObject({
      type: "MISSING_PRICE",
      severity: "error",
      status: "open",
      entity: { type: "security", id: secId },
      jobId: job.jobId,
      resolvedAt: null,
      resolvedBy: null,
      resolution: null,
    });
    expect(exception.message).toContain(secId);
    await expectOneCreatedEvent(exception);

    // The same condition again (the portfolio revalued on the same date) opens nothing new; a second
    // portfolio holding the same security on the same date has its own: each portfolio-date's
    // exceptions follow what its own valuation finds.
    await imported(token, "positions", {
      positions: [{ portfolioId: portfolio.id, securityId: secId, date: "2017-01-10", quantity: 20 }],
    });
    const other = await createPortfolio(token);
    await imported(token, "positions", {
      positions: [{ portfolioId: other.id, securityId: secId, date: "2017-01-10", quantity: 1 }],
    });
    await whenValued(token, portfolio.id, other.id);
    const both = await exceptionsFor(token, "MISSING_PRICE", secId);
    expect(both).toHaveLength(2);
    expect(both.find((e) => e.id === exception.id)).toEqual(exception);
    expect(both.find((e) => e.id !== exception.id)?.message).toContain(other.id);
    await expectOneCreatedEvent(exception);

    // Filters: type, status and severity narrow the list to matching exceptions.
    const filtered = await call(
      "GET",
      `/api/v1/exceptions?type=MISSING_PRICE&status=open&severity=error&pageSize=200`,
      { token },
    );
    expect(filtered.status).toBe(200);
    expect(
      filtered.body.data.every(
        (e: DataQualityException) => e.type === "MISSING_PRICE" && e.status === "open" && e.severity === "error",
      ),
    ).toBe(true);

    await expectResolvable(exception);
    const resolvedList = await call("GET", `/api/v1/exceptions?type=MISSING_PRICE&status=resolved&pageSize=200`, {
      token,
    });
    expect(resolvedList.body.data.some((e: DataQualityException) => e.id === exception.id)).toBe(true);
    const warnings = await call("GET", `/api/v1/exceptions?type=MISSING_PRICE&severity=warning&pageSize=200`, {
      token,
    });
    expect(warnings.body.data.some((e: DataQualityException) => e.id === exception.id)).toBe(false);
  });

  it("STALE_PRICE: the chosen price is more than 5 days older than the valuation date", async () => {
    const portfolio = await createPortfolio(token);
    const stale = securityRecord();
    const fresh = securityRecord();
    const [staleId, freshId] = await createSecurities(token, [stale, fresh]);
    // 2017-02-01 → 2017-02-07 is 6 days: stale. 2017-02-02 → 2017-02-07 is 5 days: not stale.
    await imported(token, "prices", {
      prices: [price(stale.isin, "2017-02-01", 10), price(fresh.isin, "2017-02-02", 20)],
    });
    await imported(token, "positions", {
      positions: [
        { portfolioId: portfolio.id, securityId: staleId, date: "2017-02-07", quantity: 1 },
        { portfolioId: portfolio.id, securityId: freshId, date: "2017-02-07", quantity: 1 },
      ],
    });
    await whenValued(token, portfolio.id);
    // Stale prices still value the holding: 10 + 20 = 30.00
    const view = await holdingsOf(token, portfolio.id);
    expect(view.totalValue).toBe(30);
    expect(view.holdings.find((h) => h.securityId === staleId)).toMatchObject({
      price: 10,
      priceDate: "2017-02-01",
      marketValue: 10,
    });

    const opened = await exceptionsFor(token, "STALE_PRICE", staleId);
    expect(opened).toHaveLength(1);
    const exception = opened[0] as DataQualityException;
    expect(exception).toMatchObject({
      type: "STALE_PRICE",
      severity: "warning",
      status: "open",
      entity: { type: "security", id: staleId },
    });
    expect(exception.message).toContain("2017-02-01");
    expect(await exceptionsFor(token, "STALE_PRICE", freshId)).toEqual([]);
    await expectOneCreatedEvent(exception);

    // The same stale price again, revalued on the same date: nothing new. Valued on a later date: that
    // portfolio-date's own exception.
    await imported(token, "positions", {
      positions: [
        { portfolioId: portfolio.id, securityId: staleId, date: "2017-02-07", quantity: 2 },
        { portfolioId: portfolio.id, securityId: freshId, date: "2017-02-07", quantity: 1 },
      ],
    });
    await imported(token, "positions", {
      positions: [{ portfolioId: portfolio.id, securityId: staleId, date: "2017-02-08", quantity: 2 }],
    });
    await whenValued(token, portfolio.id);
    const stales = await exceptionsFor(token, "STALE_PRICE", staleId);
    expect(stales).toHaveLength(2);
    expect(stales.find((e) => e.id === exception.id)).toEqual(exception);
    expect(stales.find((e) => e.id !== exception.id)?.message).toContain("7 days before 2017-02-08");
    await expectOneCreatedEvent(exception);

    await expectResolvable(exception);
  });

  it("PRICE_JUMP: a price moving more than 25% from the previous price of the same type", async () => {
    const jumpy = securityRecord();
    const edge = securityRecord();
    const [jumpyId, edgeId] = await createSecurities(token, [jumpy, edge]);
    await imported(token, "prices", {
      prices: [
        price(jumpy.isin, "2017-03-01", 100),
        price(jumpy.isin, "2017-03-01", 50, { type: "mid" }),
        price(edge.isin, "2017-03-01", 100),
      ],
    });
    // jumpy close 100 → 130: +30% > 25%. edge close 100 → 125: exactly 25%, not beyond.
    // jumpy mid 50 → 55: +10%, its own type's previous price, no jump.
    const job = await imported(token, "prices", {
      prices: [
        price(jumpy.isin, "2017-03-02", 130),
        price(jumpy.isin, "2017-03-02", 55, { type: "mid" }),
        price(edge.isin, "2017-03-02", 125),
      ],
    });

    const opened = await exceptionsFor(token, "PRICE_JUMP", `${jumpyId}|`, "prefix");
    expect(opened).toHaveLength(1);
    const exception = opened[0] as DataQualityException;
    expect(exception).toMatchObject({ type: "PRICE_JUMP", severity: "warning", status: "open", jobId: job.jobId });
    expect(exception.entity.type).toBe("price");
    expect(exception.entity.id).toContain("2017-03-02");
    expect(exception.entity.id).toContain("close");
    expect(exception.message).toContain("30.00%");
    expect(await exceptionsFor(token, "PRICE_JUMP", `${edgeId}|`, "prefix")).toEqual([]);
    await expectOneCreatedEvent(exception);

    // The same jump imported again opens nothing new.
    await imported(token, "prices", { prices: [price(jumpy.isin, "2017-03-02", 130)] });
    expect(await exceptionsFor(token, "PRICE_JUMP", `${jumpyId}|`, "prefix")).toEqual([exception]);
    await expectOneCreatedEvent(exception);

    // A fall of more than 25% is a jump too: 130 → 90 is -30.77%.
    await imported(token, "prices", { prices: [price(jumpy.isin, "2017-03-03", 90)] });
    const both = await exceptionsFor(token, "PRICE_JUMP", `${jumpyId}|`, "prefix");
    expect(both).toHaveLength(2);
    expect(both.find((e) => e.id !== exception.id)?.entity.id).toContain("2017-03-03");

    await expectResolvable(exception);
  });

  it("PRICE_JUMP: also between two prices of the same payload", async () => {
    const sec = securityRecord();
    const [secId] = await createSecurities(token, [sec]);
    // close 100 on 03-06, then 200 on 03-07 (+100%), imported together.
    await imported(token, "prices", {
      prices: [price(sec.isin, "2017-03-06", 100), price(sec.isin, "2017-03-07", 200)],
    });
    const opened = await exceptionsFor(token, "PRICE_JUMP", `${secId}|`, "prefix");
    expect(opened).toHaveLength(1);
    expect(opened[0]?.entity.id).toContain("2017-03-07");
  });

  it("bulk resolve: each open exception resolved once with the note and an exception.resolved event each; unknown and already-resolved ids reported", async () => {
    const secs = [securityRecord(), securityRecord()];
    const ids = await createSecurities(token, secs);
    for (const sec of secs)
      await imported(token, "prices", {
        prices: [price(sec.isin, "2017-04-06", 100), price(sec.isin, "2017-04-07", 200)],
      });
    const opened = (await Promise.all(ids.map((id) => exceptionsFor(token, "PRICE_JUMP", `${id}|`, "prefix")))).flat();
    expect(opened).toHaveLength(2);
    const [first, second] = opened as [DataQualityException, DataQualityException];
    // One resolved alone first, with a note.
    const single = await call("PATCH", `/api/v1/exceptions/${first.id}`, {
      token,
      body: { status: "resolved", resolution: "vendor confirmed the split" },
    });
    expect(single.status, single.text).toBe(200);
    expect(single.body.data).toMatchObject({ resolvedBy: BOOTSTRAP.id, resolution: "vendor confirmed the split" });

    const bulk = await call("POST", "/api/v1/exceptions/resolve", {
      token,
      body: { ids: [first.id, second.id, "exc_unknown", second.id], resolution: "checked with the vendor" },
    });
    expect(bulk.status, bulk.text).toBe(200);
    expect(bulk.body.data.notFound).toEqual(["exc_unknown"]);
    expect(bulk.body.data.alreadyResolved).toEqual([first.id]);
    expect(bulk.body.data.resolved).toHaveLength(1);
    expect(bulk.body.data.resolved[0]).toMatchObject({
      id: second.id,
      status: "resolved",
      resolvedBy: BOOTSTRAP.id,
      resolution: "checked with the vendor",
    });
    // The first keeps its own note; each is announced once.
    expect((await call("GET", `/api/v1/exceptions/${first.id}`, { token })).body.data.resolution).toBe(
      "vendor confirmed the split",
    );
    for (const [e, note] of [
      [first, "vendor confirmed the split"],
      [second, "checked with the vendor"],
    ] as const) {
      const announced = await eventsWhere("exception.resolved", (d) => d.exceptionId === e.id);
      expect(announced.map((a) => a.data)).toEqual([
        { exceptionId: e.id, type: "PRICE_JUMP", resolvedBy: BOOTSTRAP.id, resolution: note },
      ]);
    }
    // The same request again resolves nothing more.
    const again = await call("POST", "/api/v1/exceptions/resolve", { token, body: { ids: [second.id] } });
    expect(again.body.data).toEqual({ resolved: [], notFound: [], alreadyResolved: [second.id] });
    // Bad input is a 422 naming the field.
    const empty = await call("POST", "/api/v1/exceptions/resolve", { token, body: { ids: [] } });
    expect(empty.status).toBe(422);
    expect(empty.body.error.details[0].field).toBe("ids");
  });

  it("MISSING_FX_RATE: no direct, inverse or USD-cross rate into the base currency", async () => {
    // MNT and ISK appear in no other test and no rate involving them is ever imported.
    const portfolio = await createPortfolio(token, { baseCurrency: "ISK" });
    const sec = securityRecord({ currency: "MNT" });
    const local = securityRecord({ currency: "ISK" });
    const [secId, localId] = await createSecurities(token, [sec, local]);
    await imported(token, "prices", {
      prices: [
        price(sec.isin, "2017-04-10", 3000, { currency: "MNT" }),
        price(local.isin, "2017-04-10", 7, { currency: "ISK" }),
      ],
    });
    const job = await imported(token, "positions", {
      positions: [
        { portfolioId: portfolio.id, securityId: secId, date: "2017-04-10", quantity: 2 },
        { portfolioId: portfolio.id, securityId: localId, date: "2017-04-10", quantity: 3 },
      ],
    });
    await whenValued(token, portfolio.id);

    // The MNT holding is listed with its price but no value; the total is the ISK holding only: 3 × 7 = 21.00
    const view = await holdingsOf(token, portfolio.id);
    expect(view.totalValue).toBe(21);
    expect(view.holdings).toEqual([
      expect.objectContaining({ securityId: localId, marketValue: 21, weight: 1 }),
      expect.objectContaining({
        securityId: secId,
        price: 3000,
        priceCurrency: "MNT",
        fxRate: null,
        fxMethod: null,
        marketValue: null,
        weight: null,
      }),
    ]);

    const opened = await exceptionsFor(token, "MISSING_FX_RATE", "MNTISK");
    expect(opened).toHaveLength(1);
    const exception = opened[0] as DataQualityException;
    expect(exception).toMatchObject({
      type: "MISSING_FX_RATE",
      severity: "error",
      status: "open",
      entity: { type: "fxPair", id: "MNTISK" },
      jobId: job.jobId,
    });
    await expectOneCreatedEvent(exception);

    await imported(token, "positions", {
      positions: [
        { portfolioId: portfolio.id, securityId: secId, date: "2017-04-10", quantity: 5 },
        { portfolioId: portfolio.id, securityId: localId, date: "2017-04-10", quantity: 3 },
      ],
    });
    await whenValued(token, portfolio.id);
    expect(await exceptionsFor(token, "MISSING_FX_RATE", "MNTISK")).toEqual([exception]);
    await expectOneCreatedEvent(exception);

    await expectResolvable(exception);
  });

  it("exceptions follow their cause: a revaluation that no longer finds it resolves it (system, saying why, exception.resolved); it reopens when the cause returns", async () => {
    // A PLN portfolio on five dates, each holding a THB security (no THB rate: MISSING_FX_RATE), an
    // unpriced one (MISSING_PRICE) and one whose only price is from 2017-05-20 (STALE_PRICE).
    const portfolio = await createPortfolio(token, { baseCurrency: "PLN" });
    const baht = securityRecord({ currency: "THB" });
    const unpriced = securityRecord({ currency: "PLN" });
    const old = securityRecord({ currency: "PLN" });
    const [bahtId, unpricedId, oldId] = await createSecurities(token, [baht, unpriced, old]);
    const dates = ["2017-06-01", "2017-06-02", "2017-06-03", "2017-06-04", "2017-06-05"];
    await imported(token, "prices", {
      prices: [
        price(baht.isin, "2017-06-01", 100, { currency: "THB" }),
        price(old.isin, "2017-05-20", 4, { currency: "PLN" }),
      ],
    });
    const snapshot = (date: string, ids: string[]) =>
      ids.map((securityId) => ({ portfolioId: portfolio.id, securityId, date, quantity: 1 }));
    await imported(token, "positions", {
      positions: dates.flatMap((d) => snapshot(d, [bahtId, unpricedId, oldId])),
    });
    await whenValued(token, portfolio.id);
    const ofPortfolio = async (type: string, entityId: string) =>
      (await exceptionsFor(token, type, entityId)).filter((e) => e.message.includes(portfolio.id));
    expect(await ofPortfolio("MISSING_FX_RATE", "THBPLN")).toHaveLength(5);
    expect(await ofPortfolio("MISSING_PRICE", unpricedId)).toHaveLength(5);
    expect(await ofPortfolio("STALE_PRICE", oldId)).toHaveLength(5);

    // The rate arrives (THBPLN 0.11): the revaluation resolves the five MISSING_FX_RATE exceptions.
    await imported(token, "fx-rates", {
      fxRates: [{ baseCurrency: "THB", quoteCurrency: "PLN", date: "2017-06-01", rate: 0.11, source: "nbp" }],
    });
    await whenValued(token, portfolio.id);
    const fxResolved = await ofPortfolio("MISSING_FX_RATE", "THBPLN");
    expect(fxResolved.map((e) => [e.status, e.resolvedBy])).toEqual(Array(5).fill(["resolved", "system"]));
    for (const e of fxResolved) expect(e.resolution).toContain("THB now converts into PLN by a direct rate");
    expect(await call("GET", `/api/v1/exceptions?type=MISSING_FX_RATE&status=open&pageSize=200`, { token })).toSatisfy(
      (reply: { body: { data: DataQualityException[] } }) =>
        !reply.body.data.some((e) => e.entity.id === "THBPLN" && e.message.includes(portfolio.id)),
    );
    for (const e of fxResolved) {
      const announced = await eventsWhere("exception.resolved", (d) => d.exceptionId === e.id);
      expect(announced.map((a) => a.data)).toEqual([
        { exceptionId: e.id, type: "MISSING_FX_RATE", resolvedBy: "system", resolution: e.resolution },
      ]);
      expect(announced[0]?.timestamp).toBe(e.resolvedAt);
    }

    // A price for the unpriced security from 06-01 resolves its five; a fresh price of 06-03 ends the
    // staleness from 06-03 on (06-01 and 06-02 still use 05-20's); the 06-01 snapshot without the old
    // security resolves that date's STALE_PRICE too: it is no longer held.
    await imported(token, "prices", {
      prices: [
        price(unpriced.isin, "2017-06-01", 7, { currency: "PLN" }),
        price(old.isin, "2017-06-03", 5, { currency: "PLN" }),
      ],
    });
    await imported(token, "positions", { positions: snapshot("2017-06-01", [bahtId, unpricedId]) });
    await whenValued(token, portfolio.id);
    const priceResolved = await ofPortfolio("MISSING_PRICE", unpricedId);
    expect(priceResolved.map((e) => e.status)).toEqual(Array(5).fill("resolved"));
    expect(priceResolved[0]?.resolution).toMatch(/^A close price of 2017-06-01 now values security /);
    const staleByDate = new Map(
      (await ofPortfolio("STALE_PRICE", oldId)).map((e) => [/days before (\S+) /.exec(e.message)?.[1], e]),
    );
    expect(dates.map((d) => staleByDate.get(d)?.status)).toEqual([
      "resolved",
      "open",
      "resolved",
      "resolved",
      "resolved",
    ]);
    expect(staleByDate.get("2017-06-01")?.resolution).toBe(
      `Security ${oldId} is no longer held in portfolio ${portfolio.id} on 2017-06-01`,
    );
    expect(staleByDate.get("2017-06-04")?.resolution).toContain("is now a close price of 2017-06-03");

    // The old security held again on 06-01: its STALE_PRICE reopens and is announced again.
    const gone = staleByDate.get("2017-06-01") as DataQualityException;
    await imported(token, "positions", { positions: snapshot("2017-06-01", [bahtId, unpricedId, oldId]) });
    await whenValued(token, portfolio.id);
    const reopened = (await call("GET", `/api/v1/exceptions/${gone.id}`, { token })).body.data;
    expect(reopened).toMatchObject({ status: "open", resolvedAt: null, resolvedBy: null, resolution: null });
    expect(await eventsWhere("exception.created", (d) => d.exceptionId === gone.id)).toHaveLength(2);

    // A person resolves it, saying why: resolvedBy is their client id, announced the same way.
    const patched = await call("PATCH", `/api/v1/exceptions/${gone.id}`, {
      token,
      body: { status: "resolved", resolution: "Checked with the custodian: no newer price exists" },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({
      status: "resolved",
      resolvedBy: BOOTSTRAP.id,
      resolution: "Checked with the custodian: no newer price exists",
    });
    const byPerson = await eventsWhere(
      "exception.resolved",
      (d) => d.exceptionId === gone.id && d.resolvedBy === BOOTSTRAP.id,
    );
    expect(byPerson.map((e) => e.data)).toEqual([
      {
        exceptionId: gone.id,
        type: "STALE_PRICE",
        resolvedBy: BOOTSTRAP.id,
        resolution: "Checked with the custodian: no newer price exists",
      },
    ]);
    // A person's resolution stands: the next revaluation, still finding the stale price, leaves it resolved.
    await imported(token, "positions", { positions: snapshot("2017-06-01", [oldId, bahtId]) });
    await whenValued(token, portfolio.id);
    expect((await call("GET", `/api/v1/exceptions/${gone.id}`, { token })).body.data).toMatchObject({
      status: "resolved",
      resolvedBy: BOOTSTRAP.id,
    });
  });

  it("GET and PATCH /exceptions/{id} answer the documented fields only, exactly as the list shows them", async () => {
    const portfolio = await createPortfolio(token);
    const sec = securityRecord();
    const [secId] = await createSecurities(token, [sec]);
    await imported(token, "positions", {
      positions: [{ portfolioId: portfolio.id, securityId: secId, date: "2017-05-02", quantity: 1 }],
    });
    await whenValued(token, portfolio.id);
    const [listed] = await exceptionsFor(token, "MISSING_PRICE", secId);
    expect(listed).toBeDefined();
    const documented = [
      "createdAt",
      "entity",
      "id",
      "jobId",
      "message",
      "resolution",
      "resolvedAt",
      "resolvedBy",
      "severity",
      "status",
      "type",
    ];
    expect(Object.keys(listed as DataQualityException).sort()).toEqual(documented);
    const got = await call("GET", `/api/v1/exceptions/${listed?.id}`, { token });
    expect(got.status).toBe(200);
    expect(got.body.data).toEqual(listed);
    const resolved = await call("PATCH", `/api/v1/exceptions/${listed?.id}`, { token, body: { status: "resolved" } });
    expect(resolved.status).toBe(200);
    expect(Object.keys(resolved.body.data).sort()).toEqual(documented);
  });

  it("PATCH: 404 for an unknown exception, 422 for a body other than { status: resolved }", async () => {
    const missing = await call("PATCH", "/api/v1/exceptions/exc_does_not_exist", {
      token,
      body: { status: "resolved" },
    });
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe("NOT_FOUND");
    const bad = await call("PATCH", "/api/v1/exceptions/exc_does_not_exist", { token, body: { status: "open" } });
    expect(bad.status).toBe(422);
    expect(bad.body.error.code).toBe("VALIDATION_ERROR");
    expect(bad.body.error.details).toEqual([{ field: "status", message: expect.any(String) }]);
    const extra = await call("PATCH", "/api/v1/exceptions/exc_does_not_exist", {
      token,
      body: { status: "resolved", note: "x" },
    });
    expect(extra.status).toBe(422);
    expect(extra.body.error.details.map((d: { field: string }) => d.field)).toEqual(["body"]);
    const notJson = await call("PATCH", "/api/v1/exceptions/exc_does_not_exist", {
      token,
      body: "status=resolved",
      headers: { "Content-Type": "application/json" },
    });
    expect(notJson.status).toBe(400);
    expect(notJson.body.error.code).toBe("INVALID_REQUEST");
  });
});
