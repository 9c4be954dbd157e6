import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startCosmos } from "../../../test/cosmos-stand-in";
import { CosmosDataQualityExceptionRepository } from "../../adapters/cosmos/cosmos-data-quality-exception-repository";
import { CosmosFxRateRepository } from "../../adapters/cosmos/cosmos-fx-rate-repository";
import { CosmosJobRepository } from "../../adapters/cosmos/cosmos-job-repository";
import { CosmosOutbox } from "../../adapters/cosmos/cosmos-outbox";
import { CosmosPortfolioRepository } from "../../adapters/cosmos/cosmos-portfolio-repository";
import { CosmosPositionRepository } from "../../adapters/cosmos/cosmos-position-repository";
import { CosmosPriceRepository } from "../../adapters/cosmos/cosmos-price-repository";
import { CosmosSecurityRepository } from "../../adapters/cosmos/cosmos-security-repository";
import { CosmosTransactionRepository } from "../../adapters/cosmos/cosmos-transaction-repository";
import { isinCheckDigit } from "../../domain/isin";
import { newPortfolio, type Portfolio } from "../../domain/portfolio";
import type { Clock } from "../../ports/clock";
import type { PriceRepository } from "../../ports/investment-repositories";
import type { MessageBus } from "../../ports/message-bus";
import type { Outbox } from "../../ports/outbox";
import { DataQualityExceptions } from "./data-quality-exceptions";
import { ImportRecords, type ImportRecordsDeps } from "./import/import-records";
import { NewCompositeValuation } from "./new-composite-valuation";
import { SweepStaleValuations } from "./sweep-stale-valuations";
import type { ValuationMessage } from "./valuation-queue";
import { ValuationService } from "./valuation-service";
import type { ContainerName } from "../../adapters/cosmos/containers";
import { ValueStalePortfolios } from "./value-stale-portfolios";

const T0 = "2026-04-01T08:00:00.000Z";
const D = "2026-03-31";

describe("valuation off the request path: stale markers, the valuations consumer and the sweep (Cosmos stand-in)", () => {
  let cosmos: Awaited<ReturnType<typeof startCosmos>>;
  let now = Date.parse(T0);
  // A millisecond passes per reading, as on a real clock: valuations are versioned by their start time.
  const clock: Clock = { now: () => new Date(++now) };
  let sent: string[][] = [];
  const bus: MessageBus = {
    send: async (_queue, messages) => void sent.push(...messages.map((m) => (m.body as ValuationMessage).portfolioIds)),
  };
  let repos: {
    portfolios: CosmosPortfolioRepository;
    positions: CosmosPositionRepository;
    securities: CosmosSecurityRepository;
    prices: CosmosPriceRepository;
    fxRates: CosmosFxRateRepository;
    jobs: CosmosJobRepository;
    outbox: CosmosOutbox;
  };
  let seq = 0;

  beforeAll(async () => {
    cosmos = await startCosmos();
    const c = (name: ContainerName) => cosmos.db.container(name);
    repos = {
      portfolios: new CosmosPortfolioRepository(c("portfolios")),
      positions: new CosmosPositionRepository(c("positions")),
      securities: new CosmosSecurityRepository(c("securities")),
      prices: new CosmosPriceRepository(c("prices")),
      fxRates: new CosmosFxRateRepository(c("fxRates")),
      jobs: new CosmosJobRepository(c("jobs"), c("runs")),
      outbox: new CosmosOutbox(c("events")),
    };
  });
  afterAll(async () => cosmos.stop());
  beforeEach(() => {
    sent = [];
  });

  const dataQuality = () =>
    new DataQualityExceptions(
      new CosmosDataQualityExceptionRepository(cosmos.db.container("exceptions")),
      repos.outbox,
      clock,
    );
  const valuation = (prices: PriceRepository = repos.prices) =>
    new ValuationService(
      repos.portfolios,
      repos.positions,
      repos.securities,
      prices,
      repos.fxRates,
      repos.outbox,
      dataQuality(),
      clock,
      { pricePreference: ["close"], staleAfterDays: 5, fxPivots: ["USD", "EUR"] },
    );
  const consumer = (prices?: PriceRepository) =>
    new ValueStalePortfolios({
      portfolios: repos.portfolios,
      positions: repos.positions,
      jobs: repos.jobs,
      valuation: valuation(prices),
      bus,
      clock,
    });
  const imports = (replaced: Partial<ImportRecordsDeps> = {}) =>
    new ImportRecords({
      ...repos,
      transactions: new CosmosTransactionRepository(cosmos.db.container("transactions")),
      dataQuality: dataQuality(),
      messageBus: bus,
      clock,
      priceJumpThreshold: 10,
      ...replaced,
    });

  /** A portfolio holding `quantity` of a fresh EUR security priced 10 on D (positions not yet imported). */
  async function setUp(
    type: Portfolio["type"] = "standard",
    memberIds?: string[],
  ): Promise<{ id: string; isin: string; securityId: string }> {
    const n = ++seq;
    const id = `pf_U${n}`;
    await repos.portfolios.create(
      newPortfolio(
        {
          id,
          name: id,
          code: `U-${n}`,
          clientId: "c",
          baseCurrency: "EUR",
          type,
          status: "active",
          ...(memberIds !== undefined ? { memberIds } : {}),
        },
        T0,
      ),
    );
    const body = `XS${String(n).padStart(9, "0")}`;
    const isin = `${body}${isinCheckDigit(body)}`;
    await imports().execute({
      dataType: "securities",
      body: { securities: [{ isin, name: `U${n}`, assetClass: "equity", currency: "EUR" }] },
    });
    await imports().execute({ dataType: "prices", body: { prices: [priceOf(isin, 10)] } });
    return { id, isin, securityId: `sec_${isin}` };
  }
  const priceOf = (isin: string, price: number) => ({
    isin,
    date: D,
    price,
    currency: "EUR",
    type: "close",
    source: "s",
  });
  const position = (portfolioId: string, securityId: string, quantity: number) => ({
    positions: [{ portfolioId, securityId, date: D, quantity }],
  });
  /** Whether the portfolio shows a valuation pending; its flag always agrees with its markers here. */
  const pending = async (id: string) => {
    const status = (await repos.portfolios.get(id))?.valuationStatus;
    expect(status === "pending").toBe((await repos.positions.stalePortfolios([id])).has(id));
    return status === "pending";
  };
  const total = async (id: string) => (await repos.portfolios.get(id))?.totalValue;

  it("an import answers with the portfolio pending; a valuation that fails once is retried and ends current with the right value", async () => {
    const { id, securityId } = await setUp();
    const result = await imports().execute({ dataType: "positions", body: position(id, securityId, 5) });
    expect(result).toMatchObject({ created: 1 });
    expect(await pending(id)).toBe(true);
    expect(await total(id)).toBeNull();
    expect(sent).toEqual([[id]]);

    // The store fails the first price read of the valuation: the message fails (the queue retries it) and the marker stays.
    let reads = 0;
    const flaky = Object.assign(Object.create(repos.prices) as CosmosPriceRepository, {
      forValuation: (...args: Parameters<PriceRepository["forValuation"]>) =>
        ++reads === 1 ? Promise.reject(new Error("connection reset")) : repos.prices.forValuation(...args),
    });
    const run = consumer(flaky);
    await expect(run.execute({ portfolioIds: [id] })).rejects.toThrow("connection reset");
    expect(await pending(id)).toBe(true);
    expect(await total(id)).toBeNull();

    await run.execute({ portfolioIds: [id] });
    expect(await pending(id)).toBe(false);
    expect(await total(id)).toBe(50);
    expect((await repos.positions.valuation(id, D, false))?.totalValue).toBe(50);
  });

  it("a message's portfolios are valued together; one the store keeps failing for does not hold up the others", async () => {
    const set = await Promise.all([setUp(), setUp(), setUp()]);
    for (const [i, { id, securityId }] of set.entries())
      await imports().execute({ dataType: "positions", body: position(id, securityId, i + 1) });
    const [a, bad, c] = set.map((p) => p.id) as [string, string, string];
    const badSecurity = set[1]?.securityId ?? "";

    // Every price read that includes the bad portfolio's security fails; the others' reads succeed.
    let reads = 0;
    const failing = Object.assign(Object.create(repos.prices) as CosmosPriceRepository, {
      forValuation: (...args: Parameters<PriceRepository["forValuation"]>) => {
        reads++;
        return args[0].includes(badSecurity)
          ? Promise.reject(new Error("connection reset"))
          : repos.prices.forValuation(...args);
      },
    });
    await expect(consumer(failing).execute({ portfolioIds: [a, bad, c] })).rejects.toThrow("connection reset");
    // One read for all three together, then one per portfolio on its own.
    expect(reads).toBe(4);
    expect([await total(a), await total(bad), await total(c)]).toEqual([10, null, 30]);
    expect([await pending(a), await pending(bad), await pending(c)]).toEqual([false, true, false]);

    // Retried once the store is back: the remaining one is valued, the others are not valued again.
    await consumer().execute({ portfolioIds: [a, bad, c] });
    expect([await total(a), await total(bad), await total(c)]).toEqual([10, 20, 30]);
    expect([await pending(a), await pending(bad), await pending(c)]).toEqual([false, false, false]);
    const valued = await repos.outbox.list({ event: "portfolio.valued" });
    const count = (id: string) => valued.filter((e) => (e.data as { portfolioId: string }).portfolioId === id).length;
    expect([count(a), count(bad), count(c)]).toEqual([1, 1, 1]);
  });

  it("an import retried after a failed attempt had stored its data still revalues (its records are 'unchanged' the second time)", async () => {
    const { id, isin, securityId } = await setUp();
    await imports().execute({ dataType: "positions", body: position(id, securityId, 5) });
    await consumer().execute({ portfolioIds: [id] });
    expect(await total(id)).toBe(50);

    // The first attempt stores the new price, then fails (the outbox is unreachable): 503, records stored.
    let appends = 0;
    const failingOnce: Outbox = {
      append: (events) => (++appends === 1 ? Promise.reject(new Error("outbox down")) : repos.outbox.append(events)),
    } as Outbox;
    const newPrice = { prices: [priceOf(isin, 12)] };
    await expect(
      imports({ outbox: failingOnce }).execute({ dataType: "prices", body: newPrice }),
    ).rejects.toMatchObject({ code: "SERVICE_UNAVAILABLE" });
    // The retry finds the price already stored, and still finds the marker the failed attempt left.
    sent = [];
    expect(await imports().execute({ dataType: "prices", body: newPrice })).toMatchObject({
      created: 0,
      updated: 0,
      unchanged: 1,
    });
    expect(await pending(id)).toBe(true);
    expect(sent.flat()).toContain(id);
    await consumer().execute({ portfolioIds: [id] });
    expect(await total(id)).toBe(60);
    expect(await pending(id)).toBe(false);
  });

  it("an import retried after its first attempt's process died mid-way revalues once that attempt's lease has passed", async () => {
    const { id, isin, securityId } = await setUp();
    await imports().execute({ dataType: "positions", body: position(id, securityId, 5) });
    await consumer().execute({ portfolioIds: [id] });
    // The dead attempt: its job running on a lease, its writing marker and flag, and its price stored; nothing after.
    const dead = {
      id: `job_dead_${id}`,
      source: "api" as const,
      dataType: "prices" as const,
      feedId: null,
      fileName: null,
      status: "running" as const,
      counts: { received: 1, accepted: 0, rejected: 0, removed: 0 },
      errors: [],
      startedAt: new Date(now).toISOString(),
      completedAt: null,
      leaseUntil: new Date(now + 60_000).toISOString(),
    };
    await repos.jobs.put(dead);
    await repos.positions.markStale([{ portfolioId: id, date: D }], {
      markedAt: new Date(now).toISOString(),
      jobId: dead.id,
      writing: true,
    });
    await repos.portfolios.markValuationPending([id]);
    await repos.prices.save([
      {
        securityId,
        isin,
        date: D,
        price: 13,
        currency: "EUR",
        type: "close",
        source: "s",
        updatedAt: new Date(now).toISOString(),
      },
    ]);

    sent = [];
    expect(await imports().execute({ dataType: "prices", body: { prices: [priceOf(isin, 13)] } })).toMatchObject({
      unchanged: 1,
    });
    expect(await pending(id)).toBe(true);
    expect(sent.flat()).toContain(id);
    // While the dead attempt's lease runs, its marker is left alone; afterwards it is valued and cleared.
    await consumer().execute({ portfolioIds: [id] });
    expect(await total(id)).toBe(50);
    now += 120_000;
    await consumer().execute({ portfolioIds: [id] });
    expect(await total(id)).toBe(65);
    expect(await pending(id)).toBe(false);
  });

  it("an import that changes nothing leaves no marker and sends nothing", async () => {
    const { id, isin, securityId } = await setUp();
    await imports().execute({ dataType: "positions", body: position(id, securityId, 5) });
    await consumer().execute({ portfolioIds: [id] });
    sent = [];
    expect(await imports().execute({ dataType: "positions", body: position(id, securityId, 5) })).toMatchObject({
      unchanged: 1,
    });
    expect(await imports().execute({ dataType: "prices", body: { prices: [priceOf(isin, 10)] } })).toMatchObject({
      unchanged: 1,
    });
    expect(await pending(id)).toBe(false);
    expect(sent).toEqual([]);
  });

  it("repeated imports of the same portfolio-date coalesce into one marker, valued once from the latest data", async () => {
    const { id, securityId } = await setUp();
    for (const quantity of [1, 2, 3])
      await imports().execute({ dataType: "positions", body: position(id, securityId, quantity) });
    expect(await repos.positions.staleMarkers(id, 10)).toEqual([
      expect.objectContaining({ portfolioId: id, date: D, writing: false }),
    ]);
    const before = (await repos.outbox.list({ event: "portfolio.valued" })).length;
    await consumer().execute({ portfolioIds: [id, id] });
    expect(await total(id)).toBe(30);
    expect(
      (await repos.outbox.list({ event: "portfolio.valued" })).filter((e) => e.data.portfolioId === id),
    ).toHaveLength(1);
    expect((await repos.outbox.list({ event: "portfolio.valued" })).length).toBe(before + 1);
  });

  it("a marker re-written while its valuation runs stays (the change may not have been read) and is valued again", async () => {
    const { id, isin, securityId } = await setUp();
    await imports().execute({ dataType: "positions", body: position(id, securityId, 5) });
    // While the valuation reads its prices, an import stores a new price and re-marks the date.
    let once = true;
    const racing = Object.assign(Object.create(repos.prices) as CosmosPriceRepository, {
      forValuation: async (...args: Parameters<PriceRepository["forValuation"]>) => {
        const read = await repos.prices.forValuation(...args);
        if (once) {
          once = false;
          await imports().execute({ dataType: "prices", body: { prices: [priceOf(isin, 11)] } });
        }
        return read;
      },
    });
    await consumer(racing).execute({ portfolioIds: [id] });
    expect(await total(id)).toBe(50);
    expect(await pending(id)).toBe(true);
    await consumer().execute({ portfolioIds: [id] });
    expect(await total(id)).toBe(55);
    expect(await pending(id)).toBe(false);
  });

  it("leaves a marker an import wrote before its data while that import runs on a live lease; values it once the import ended", async () => {
    const { id, securityId } = await setUp();
    await repos.positions.saveSnapshots([
      {
        portfolioId: id,
        date: D,
        positions: [{ securityId, quantity: 4, costBasis: null, currency: null }],
        currencies: ["EUR"],
        updatedAt: T0,
      },
    ]);
    const job = {
      id: `job_writing_${id}`,
      source: "api" as const,
      dataType: "positions" as const,
      feedId: null,
      fileName: null,
      status: "running" as const,
      counts: { received: 1, accepted: 0, rejected: 0, removed: 0 },
      errors: [],
      startedAt: T0,
      completedAt: null,
      leaseUntil: new Date(now + 60_000).toISOString(),
    };
    await repos.jobs.put(job);
    await repos.positions.markStale([{ portfolioId: id, date: D }], { markedAt: T0, jobId: job.id, writing: true });
    await repos.portfolios.markValuationPending([id]);
    await consumer().execute({ portfolioIds: [id] });
    expect(await total(id)).toBeNull();
    expect(await pending(id)).toBe(true);
    // The import died: once its lease has passed, the marker is an ordinary one.
    now += 120_000;
    await consumer().execute({ portfolioIds: [id] });
    expect(await total(id)).toBe(40);
    expect(await pending(id)).toBe(false);
  });

  it("valuing a member makes its composites stale for that date, and a new composite is marked on its members' latest date", async () => {
    const member = await setUp();
    const { id: compositeId } = await setUp("composite", [member.id]);
    await imports().execute({ dataType: "positions", body: position(member.id, member.securityId, 7) });
    sent = [];
    await consumer().execute({ portfolioIds: [member.id] });
    expect(await pending(compositeId)).toBe(true);
    expect(sent).toEqual([[compositeId]]);
    await consumer().execute({ portfolioIds: [compositeId] });
    expect(await total(compositeId)).toBe(70);
    expect(await pending(compositeId)).toBe(false);

    const late = await setUp("composite", [member.id]);
    const composite = (await repos.portfolios.get(late.id))!;
    await new NewCompositeValuation({
      portfolios: repos.portfolios,
      positions: repos.positions,
      valuation: valuation(),
      bus,
      clock,
    }).valueNewComposite(composite);
    expect(await repos.positions.staleMarkers(late.id, 10)).toEqual([expect.objectContaining({ date: D })]);
    await consumer().execute({ portfolioIds: [late.id] });
    expect(await total(late.id)).toBe(70);
  });

  it("a portfolio left flagged pending without any marker is swept, and the consumer makes it current", async () => {
    const { id } = await setUp();
    await repos.portfolios.markValuationPending([id]);
    expect((await repos.portfolios.get(id))?.valuationStatus).toBe("pending");
    expect(
      await new SweepStaleValuations({
        positions: repos.positions,
        portfolios: repos.portfolios,
        bus,
        clock,
        ageSeconds: 60,
      }).execute(),
    ).toContain(id);
    await consumer().execute({ portfolioIds: [id] });
    expect((await repos.portfolios.get(id))?.valuationStatus).toBe("current");
  });

  it("the sweep re-enqueues portfolios whose markers are older than its age, and only those", async () => {
    const { id } = await setUp();
    const marked = now;
    await repos.positions.markStale([{ portfolioId: id, date: D }], {
      markedAt: new Date(marked).toISOString(),
      jobId: null,
      writing: false,
    });
    now = marked + 30_000;
    expect(
      await new SweepStaleValuations({
        positions: repos.positions,
        portfolios: repos.portfolios,
        bus,
        clock,
        ageSeconds: 60,
      }).execute(),
    ).not.toContain(id);
    now = marked + 61_000;
    expect(
      await new SweepStaleValuations({
        positions: repos.positions,
        portfolios: repos.portfolios,
        bus,
        clock,
        ageSeconds: 60,
      }).execute(),
    ).toContain(id);
    expect(sent.flat()).toContain(id);
  });
});
