import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCosmos } from "../../../test/cosmos-stand-in";
import { CosmosDataQualityExceptionRepository } from "../../adapters/cosmos/cosmos-data-quality-exception-repository";
import { CosmosFxRateRepository } from "../../adapters/cosmos/cosmos-fx-rate-repository";
import { CosmosOutbox } from "../../adapters/cosmos/cosmos-outbox";
import { CosmosPortfolioRepository } from "../../adapters/cosmos/cosmos-portfolio-repository";
import { CosmosPositionRepository } from "../../adapters/cosmos/cosmos-position-repository";
import { CosmosPriceRepository } from "../../adapters/cosmos/cosmos-price-repository";
import { CosmosSecurityRepository } from "../../adapters/cosmos/cosmos-security-repository";
import type { Clock } from "../../ports/clock";
import type { StoredValuation } from "../../ports/investment-repositories";
import { DataQualityExceptions } from "./data-quality-exceptions";
import { ValuationService } from "./valuation-service";
import { newPortfolio } from "../../domain/portfolio";

const T0 = "2026-03-02T08:00:00.000Z";
const price = (value: number, updatedAt: string) => ({
  securityId: "sec_V",
  isin: null,
  date: "2026-03-02",
  price: value,
  currency: "EUR",
  type: "close" as const,
  source: "S",
  updatedAt,
});

describe("ValuationService: overlapping computations (on the Cosmos stand-in)", () => {
  let cosmos: Awaited<ReturnType<typeof startCosmos>>;
  beforeAll(async () => {
    cosmos = await startCosmos();
  });
  afterAll(async () => cosmos.stop());

  it("a computation that started earlier but finishes last leaves the newer one stored, holdings and totalValue from one computation", async () => {
    let now = Date.parse(T0);
    const clock: Clock = { now: () => new Date(now) };
    const portfolios = new CosmosPortfolioRepository(cosmos.db.container("portfolios"));
    const positions = new CosmosPositionRepository(cosmos.db.container("positions"));
    const securities = new CosmosSecurityRepository(cosmos.db.container("securities"));
    const prices = new CosmosPriceRepository(cosmos.db.container("prices"));
    const outbox = new CosmosOutbox(cosmos.db.container("events"));
    await portfolios.create(
      newPortfolio(
        {
          id: "pf_V",
          name: "V",
          code: "V-RACE",
          clientId: "c",
          baseCurrency: "EUR",
          type: "standard",
          status: "active",
        },
        T0,
      ),
    );
    await securities.save([
      {
        id: "sec_V",
        isin: null,
        cusip: null,
        sedol: null,
        figi: null,
        ticker: null,
        name: "V share",
        assetClass: "equity",
        currency: "EUR",
        country: null,
        exchange: null,
        lookThroughPortfolioId: null,
        status: "active",
        createdAt: T0,
        updatedAt: T0,
      },
    ]);
    await positions.saveSnapshots([
      {
        portfolioId: "pf_V",
        date: "2026-03-02",
        positions: [{ securityId: "sec_V", quantity: 10, costBasis: null, currency: null }],
        currencies: ["EUR"],
        updatedAt: T0,
      },
    ]);
    await prices.save([price(10, T0)]);

    // The older computation is held just before it stores its result, until the newer one has finished.
    let release: () => void = () => {};
    const held = new Promise<void>((r) => (release = r));
    let first = true;
    const gated = Object.create(positions) as CosmosPositionRepository;
    gated.saveValuations = async (valuations: readonly StoredValuation[]) => {
      if (first) {
        first = false;
        await held;
      }
      return positions.saveValuations(valuations);
    };
    const service = new ValuationService(
      portfolios,
      gated,
      securities,
      prices,
      new CosmosFxRateRepository(cosmos.db.container("fxRates")),
      outbox,
      new DataQualityExceptions(
        new CosmosDataQualityExceptionRepository(cosmos.db.container("exceptions")),
        outbox,
        clock,
      ),
      clock,
      { pricePreference: ["close"], staleAfterDays: 5, fxPivots: ["USD", "EUR"] },
    );

    const portfolio = (await portfolios.get("pf_V"))!;
    const older = service.valueOn(portfolio, "2026-03-02", null);
    await expect.poll(() => first, { timeout: 5_000, interval: 10 }).toBe(false); // the older one has read its inputs (price 10) and waits
    now += 60_000;
    await prices.save([price(20, new Date(now).toISOString())]);
    await service.valueOn(portfolio, "2026-03-02", null);
    release();
    await older;

    const stored = await positions.valuation("pf_V", "2026-03-02", false);
    const after = await portfolios.get("pf_V");
    expect(stored?.totalValue).toBe(200);
    expect(after?.totalValue).toBe(200);
    expect(stored?.holdings.reduce((sum, h) => sum + (h.marketValue ?? 0), 0)).toBe(after?.totalValue);
    expect(after).not.toHaveProperty("valuationVersion");

    // A later edit of the portfolio keeps the version: an older result still cannot replace the total.
    await portfolios.update("pf_V", (p) => ({ ...p, name: "V renamed" }));
    expect(
      await portfolios.recordValuation("pf_V", {
        date: "2026-03-02",
        totalValue: 1,
        complete: true,
        unvaluedCount: 0,
        version: T0,
        valuedAt: T0,
      }),
    ).toBe(false);
    expect((await portfolios.get("pf_V"))?.totalValue).toBe(200);
  });

  it("portfolio totals recorded in bulk: of several valuations of one portfolio the newest shows, whatever their order", async () => {
    const portfolios = new CosmosPortfolioRepository(cosmos.db.container("portfolios"));
    const base = {
      name: "W",
      clientId: "c",
      baseCurrency: "EUR",
      type: "standard" as const,
      status: "active" as const,
      totalValue: null,
      latestValuationDate: null,
      valuationComplete: null,
      unvaluedCount: null,
      createdAt: T0,
      updatedAt: T0,
    };
    await portfolios.create({ ...base, id: "pf_W1", code: "W-1" });
    await portfolios.create({ ...base, id: "pf_W2", code: "W-2" });
    const v = (id: string, date: string, totalValue: number, version: string) => ({
      id,
      date,
      totalValue,
      complete: true,
      unvaluedCount: 0,
      version,
      valuedAt: T0,
    });
    const applied = await portfolios.recordValuations([
      v("pf_W1", "2026-03-03", 30, "b"),
      v("pf_W2", "2026-03-01", 10, "a"),
      v("pf_W1", "2026-03-01", 10, "c"),
      v("pf_W2", "2026-03-03", 30, "a"),
      v("pf_W2", "2026-03-03", 31, "b"),
    ]);
    // Each one applied answers when the portfolio's version it made was recorded.
    expect(applied.map((at) => at !== undefined)).toEqual([true, false, false, false, true]);
    expect((await portfolios.get("pf_W1"))?.totalValue).toBe(30);
    expect(await portfolios.get("pf_W2")).toMatchObject({ totalValue: 31, latestValuationDate: "2026-03-03" });
    // An older one later changes nothing.
    expect(await portfolios.recordValuations([v("pf_W2", "2026-03-02", 20, "z")])).toEqual([undefined]);
    expect((await portfolios.get("pf_W2"))?.totalValue).toBe(31);
  });

  it("a reader that catches a valuation being replaced reads the newer one whole, never holdings of one and a total of another", async () => {
    const container = cosmos.db.container("positions");
    const writer = new CosmosPositionRepository(container);
    const holding = (value: number) =>
      ({
        securityId: "sec_R",
        isin: null,
        name: "R",
        assetClass: "equity",
        currency: "EUR",
        quantity: 1,
        price: value,
        priceDate: "2026-03-02",
        priceType: "close",
        fxRate: 1,
        marketValue: value,
        weight: 1,
      }) as unknown as StoredValuation["holdings"][number];
    const valuation = (value: number, version: string): StoredValuation => ({
      portfolioId: "pf_R",
      date: "2026-03-02",
      baseCurrency: "EUR",
      totalValue: value,
      complete: true,
      unvaluedCount: 0,
      holdings: [holding(value)],
      valuedAt: T0,
      version,
    });
    expect(await writer.saveValuation(valuation(100, "1"))).toBe(true);
    // The reader's container: just before it reads the chunks, a newer computation replaces the valuation.
    let replaced = false;
    const items = new Proxy(container.items, {
      get(target, prop) {
        const value = Reflect.get(target, prop, target) as unknown;
        if (prop !== "bulk" || typeof value !== "function")
          return typeof value === "function" ? value.bind(target) : value;
        return async (...args: unknown[]) => {
          if (!replaced) {
            replaced = true;
            expect(await writer.saveValuation(valuation(300, "2"))).toBe(true);
          }
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const readerContainer = new Proxy(container, {
      get: (target, prop) => (prop === "items" ? items : (Reflect.get(target, prop, target) as unknown)),
    });
    const read = await new CosmosPositionRepository(readerContainer).valuation("pf_R", "2026-03-02", false);
    expect(replaced).toBe(true);
    // A replaced valuation keeps its chunks (reads as at an earlier instant show it): the reader gets the one it
    // started on, whole; the next read the newer one.
    expect(read?.holdings.map((h) => h.marketValue)).toEqual([read?.totalValue]);
    expect((await writer.valuation("pf_R", "2026-03-02", false))?.holdings.map((h) => h.marketValue)).toEqual([300]);
  });
});
