import { randomUUID } from "node:crypto";
import { eventIdOf, type EventEnvelope } from "../../domain/events";
import type { DataQualityCandidate } from "../../domain/data-quality-exception";
import { fxPair } from "../../domain/fx-rate";
import type { Portfolio } from "../../domain/portfolio";
import type { PositionSnapshot } from "../../domain/position";
import {
  valuePortfolio,
  type PositionInput,
  type PriceType,
  type SecurityInfo,
  type Valuation,
  type ValuationIssue,
} from "../../domain/valuation/index";
import type { Clock } from "../../ports/clock";
import type {
  FxRateRepository,
  PositionRepository,
  PriceRepository,
  SecurityRepository,
  SnapshotRef,
} from "../../ports/investment-repositories";
import type { Outbox } from "../../ports/outbox";
import type { PortfolioRepository } from "../../ports/portfolio-repository";
import type { DataQualityExceptions } from "./data-quality-exceptions";

export interface ValuationSettings {
  pricePreference: readonly PriceType[];
  staleAfterDays: number;
}

/** Currency pairs that can value `currencies` in `base`: direct, inverse, and both legs through USD. */
export function pairsFor(currencies: Iterable<string>, base: string): string[] {
  const pairs = new Set<string>([fxPair("USD", base), fxPair(base, "USD")]);
  for (const c of currencies) {
    for (const [a, b] of [
      [c, base],
      [base, c],
      [c, "USD"],
      ["USD", c],
    ] as const)
      if (a !== b) pairs.add(fxPair(a, b));
  }
  return [...pairs].filter((p) => p.slice(0, 3) !== p.slice(3));
}

function issueToCandidate(issue: ValuationIssue, portfolioId: string): DataQualityCandidate {
  switch (issue.type) {
    case "MISSING_PRICE":
      return {
        key: `MISSING_PRICE|${issue.securityId}|${issue.date}`,
        type: "MISSING_PRICE",
        severity: "error",
        message: `No price for security ${issue.securityId} on or before ${issue.date} (portfolio ${portfolioId})`,
        entity: { type: "security", id: issue.securityId },
      };
    case "STALE_PRICE":
      return {
        key: `STALE_PRICE|${issue.securityId}|${issue.priceDate}`,
        type: "STALE_PRICE",
        severity: "warning",
        message: `The latest price of security ${issue.securityId} is from ${issue.priceDate}, ${issue.ageDays} days before ${issue.date}`,
        entity: { type: "security", id: issue.securityId },
      };
    case "MISSING_FX_RATE":
      return {
        key: `MISSING_FX_RATE|${issue.from}${issue.to}|${issue.date}`,
        type: "MISSING_FX_RATE",
        severity: "error",
        message: `No FX rate from ${issue.from} to ${issue.to} on or before ${issue.date} (direct, inverse or through USD)`,
        entity: { type: "fxPair", id: `${issue.from}${issue.to}` },
      };
    case "UNKNOWN_SECURITY":
      return {
        key: `UNKNOWN_SECURITY|${issue.securityId}`,
        type: "UNKNOWN_SECURITY",
        severity: "error",
        message: `Security ${issue.securityId} is held but not known`,
        entity: { type: "security", id: issue.securityId },
      };
    case "VALUE_OUT_OF_RANGE":
      return {
        key: `VALUE_OUT_OF_RANGE|${portfolioId}|${issue.securityId}|${issue.date}`,
        type: "VALUE_OUT_OF_RANGE",
        severity: "error",
        message: `Security ${issue.securityId} in portfolio ${portfolioId} cannot be valued on ${issue.date}: its quantity × price × FX rate is beyond what can be computed; it is left out of the total until its position or price is corrected`,
        entity: { type: "portfolio", id: portfolioId },
      };
  }
}

/**
 * Values one portfolio on one date: holdings, total value and latest valuation date, `portfolio.valued`,
 * and the data-quality exceptions the valuation finds. Which portfolio-dates need it is told by their
 * stale markers (the valuations queue, ValueStalePortfolios); this class only computes and stores.
 */
export class ValuationService {
  constructor(
    private readonly portfolios: PortfolioRepository,
    private readonly positions: PositionRepository,
    private readonly securities: SecurityRepository,
    private readonly prices: PriceRepository,
    private readonly fxRates: FxRateRepository,
    private readonly outbox: Outbox,
    private readonly dataQuality: DataQualityExceptions,
    private readonly clock: Clock,
    private readonly settings: ValuationSettings,
  ) {}

  /**
   * Values `portfolio` on `date` from its snapshot there (a composite: from its members' latest
   * snapshots on or before it). Undefined when a standard portfolio has no snapshot on that date.
   */
  async valueOn(portfolio: Portfolio, date: string, jobId: string | null): Promise<Valuation | undefined> {
    if (portfolio.type === "composite") return this.valueComposite(portfolio, date, jobId);
    const snapshot = (await this.positions.getSnapshots([{ portfolioId: portfolio.id, date }])).get(
      `${portfolio.id}|${date}`,
    );
    return snapshot === undefined ? undefined : this.valueAndStore(portfolio, date, snapshot.positions, jobId);
  }

  /**
   * The composite portfolio-dates that valuing these member portfolio-dates makes stale. `candidates`,
   * when given, are the composites containing them, already read.
   */
  async compositesStaleAfter(
    valued: readonly SnapshotRef[],
    candidates?: readonly Portfolio[],
  ): Promise<SnapshotRef[]> {
    if (valued.length === 0) return [];
    const composites =
      candidates ?? (await this.portfolios.compositesContaining([...new Set(valued.map((v) => v.portfolioId))]));
    const out: SnapshotRef[] = [];
    for (const composite of composites) {
      const changed = valued
        .filter((v) => composite.memberIds?.includes(v.portfolioId))
        .map((v) => v.date)
        .sort();
      const first = changed[0];
      if (first === undefined) continue;
      // A member's snapshot also counts on the composite's later dates, until that member's next snapshot.
      const later = await this.positions.snapshotDates(composite.memberIds ?? [], first);
      for (const date of new Set([...changed, ...later])) out.push({ portfolioId: composite.id, date });
    }
    return out;
  }

  /** The date a new composite is valued on: its members' latest snapshot date, if they have one. */
  async firstCompositeDate(composite: Portfolio): Promise<string | undefined> {
    const dates = await this.positions.snapshotDates(composite.memberIds ?? [], "0000-01-01");
    return dates.at(-1);
  }

  private async valueComposite(composite: Portfolio, date: string, jobId: string | null): Promise<Valuation> {
    const memberSnapshots = await Promise.all(
      (composite.memberIds ?? []).map((id) => this.positions.latestSnapshot(id, date)),
    );
    const positions = memberSnapshots.filter((s): s is PositionSnapshot => s !== undefined).flatMap((s) => s.positions);
    return this.valueAndStore(composite, date, positions, jobId);
  }

  private async valueAndStore(
    portfolio: Portfolio,
    date: string,
    positions: readonly PositionInput[],
    jobId: string | null,
  ): Promise<Valuation> {
    // Taken before any input is read: of two overlapping computations, the one that started later wins.
    const version = `${this.clock.now().toISOString()}|${randomUUID()}`;
    const securityIds = [...new Set(positions.map((p) => p.securityId))];
    const [securities, prices] = await Promise.all([
      this.securities.getMany(securityIds),
      this.prices.forValuation(securityIds, date, this.settings.pricePreference),
    ]);
    const currencies = new Set<string>();
    const infos = new Map<string, SecurityInfo>();
    for (const s of securities.values()) {
      currencies.add(s.currency);
      infos.set(s.id, {
        id: s.id,
        ...(s.isin !== null ? { isin: s.isin } : {}),
        name: s.name,
        assetClass: s.assetClass,
        currency: s.currency,
        ...(s.lookThroughPortfolioId !== null ? { lookThroughPortfolioId: s.lookThroughPortfolioId } : {}),
      });
    }
    for (const series of prices.values()) for (const p of series) currencies.add(p.currency);
    const fx = await this.fxRates.latest(pairsFor(currencies, portfolio.baseCurrency), date);
    const valuation = valuePortfolio({
      portfolioId: portfolio.id,
      baseCurrency: portfolio.baseCurrency,
      date,
      positions,
      securities: infos,
      prices,
      fx,
      pricePreference: this.settings.pricePreference,
      staleAfterDays: this.settings.staleAfterDays,
    });
    const valuedAt = this.clock.now().toISOString();
    const stored = await this.positions.saveValuation({
      portfolioId: portfolio.id,
      date,
      baseCurrency: portfolio.baseCurrency,
      totalValue: valuation.totalValue,
      holdings: valuation.holdings,
      valuedAt,
      version,
    });
    // Superseded by a computation that started later: it announces its own result.
    if (!stored) return valuation;
    await this.portfolios.recordValuation(portfolio.id, { date, totalValue: valuation.totalValue, version, valuedAt });
    const event: EventEnvelope = {
      id: eventIdOf("portfolio.valued", `${portfolio.id}|${date}|${valuedAt}`),
      event: "portfolio.valued",
      timestamp: valuedAt,
      data: {
        portfolioId: portfolio.id,
        valuationDate: date,
        totalValue: valuation.totalValue,
        currency: portfolio.baseCurrency,
      },
    };
    await this.outbox.append([event]);
    await this.dataQuality.open(
      valuation.issues.map((i) => issueToCandidate(i, portfolio.id)),
      jobId,
    );
    return valuation;
  }
}
