import { randomUUID } from "node:crypto";
import { eventIdOf, type EventEnvelope } from "../../domain/events";
import type { Portfolio } from "../../domain/portfolio";
import type { PositionSnapshot } from "../../domain/position";
import {
  fxPairsFor,
  valuePortfolio,
  type PositionInput,
  type PriceType,
  type SecurityInfo,
  type Valuation,
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
import { withWriteContext } from "../../observability/write-context";
import type { DataQualityExceptions } from "./data-quality-exceptions";
import { issueToCandidate, resolutionOf } from "./valuation-issues";

export interface ValuationSettings {
  pricePreference: readonly PriceType[];
  staleAfterDays: number;
  /** Currencies a cross rate may go through, in order (FX_PIVOT_CURRENCIES). */
  fxPivots: readonly string[];
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
    const [valuation] = await this.valueMany([{ portfolio, date, jobId }]);
    return valuation;
  }

  /**
   * valueOn for many standard portfolio-dates at once: their snapshots, securities, prices and FX rates
   * read together (one read per kind, per date), their results stored together. In input order.
   */
  async valueMany(
    requests: readonly { portfolio: Portfolio; date: string; jobId: string | null }[],
  ): Promise<(Valuation | undefined)[]> {
    // Taken before any input is read: of two overlapping computations, the one that started later wins.
    const version = this.newVersion();
    const snapshots = await this.positions.getSnapshots(
      requests.map(({ portfolio, date }) => ({ portfolioId: portfolio.id, date })),
    );
    const work = requests.flatMap((request, index) => {
      if (request.portfolio.type === "composite")
        throw new Error(`valueMany values standard portfolios; ${request.portfolio.id} is a composite`);
      const snapshot = snapshots.get(`${request.portfolio.id}|${request.date}`);
      return snapshot === undefined ? [] : [{ ...request, index, version, positions: snapshot.positions }];
    });
    const valuations = await this.valueAndStore(work);
    const out = new Array<Valuation | undefined>(requests.length);
    work.forEach((w, i) => (out[w.index] = valuations[i]));
    return out;
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
    const version = this.newVersion();
    const memberSnapshots = await Promise.all(
      (composite.memberIds ?? []).map((id) => this.positions.latestSnapshot(id, date)),
    );
    const positions = memberSnapshots.filter((s): s is PositionSnapshot => s !== undefined).flatMap((s) => s.positions);
    const [valuation] = await this.valueAndStore([{ portfolio: composite, date, jobId, version, positions }]);
    if (valuation === undefined) throw new Error(`valuing composite ${composite.id} on ${date} gave no result`);
    return valuation;
  }

  private newVersion(): string {
    return `${this.clock.now().toISOString()}|${randomUUID()}`;
  }

  /** Values each portfolio-date from its positions, reading the inputs of each date once, and stores the results. */
  private async valueAndStore(work: readonly ValuationWork[]): Promise<Valuation[]> {
    if (work.length === 0) return [];
    const byDate = new Map<string, ValuationWork[]>();
    for (const w of work) {
      const same = byDate.get(w.date);
      if (same === undefined) byDate.set(w.date, [w]);
      else same.push(w);
    }
    const dates = [...byDate];
    const heldOn = (same: readonly ValuationWork[]): string[] => [
      ...new Set(same.flatMap((w) => w.positions.map((p) => p.securityId))),
    ];
    const [securities, pricesByDate] = await Promise.all([
      this.securities.getMany(heldOn(work)),
      Promise.all(
        dates.map(([date, same]) => this.prices.forValuation(heldOn(same), date, this.settings.pricePreference)),
      ),
    ]);
    const infos = new Map<string, SecurityInfo>();
    for (const s of securities.values()) {
      infos.set(s.id, {
        id: s.id,
        ...(s.isin !== null ? { isin: s.isin } : {}),
        name: s.name,
        assetClass: s.assetClass,
        currency: s.currency,
        ...(s.lookThroughPortfolioId !== null ? { lookThroughPortfolioId: s.lookThroughPortfolioId } : {}),
      });
    }
    // The pairs each date's portfolios may need, read once per date: a rate table with more pairs than a
    // portfolio uses values it the same.
    const fxByDate = await Promise.all(
      dates.map(([date, same], d) => {
        const pairs = new Set<string>();
        for (const w of same) {
          const currencies = new Set<string>();
          for (const p of w.positions) {
            const currency = securities.get(p.securityId)?.currency;
            if (currency !== undefined) currencies.add(currency);
            for (const price of pricesByDate[d]?.get(p.securityId) ?? []) currencies.add(price.currency);
          }
          for (const pair of fxPairsFor(currencies, w.portfolio.baseCurrency, this.settings.fxPivots)) pairs.add(pair);
        }
        return this.fxRates.latest([...pairs], date);
      }),
    );
    const inputsOn = new Map(dates.map(([date], d) => [date, { prices: pricesByDate[d], fx: fxByDate[d] }]));
    const valuations = work.map((w) => {
      const inputs = inputsOn.get(w.date);
      return valuePortfolio({
        portfolioId: w.portfolio.id,
        baseCurrency: w.portfolio.baseCurrency,
        date: w.date,
        positions: w.positions,
        securities: infos,
        prices: inputs?.prices ?? new Map(),
        fx: inputs?.fx ?? new Map(),
        pricePreference: this.settings.pricePreference,
        staleAfterDays: this.settings.staleAfterDays,
        fxPivots: this.settings.fxPivots,
      });
    });
    const valuedAt = this.clock.now().toISOString();
    // Valuation's versions are the system's, for the import that made them due (its job).
    const stored = await withWriteContext({ recordedBy: "system" }, () =>
      this.positions.saveValuations(
        work.map((w, i) => ({
          portfolioId: w.portfolio.id,
          date: w.date,
          baseCurrency: w.portfolio.baseCurrency,
          totalValue: valuations[i]?.totalValue ?? 0,
          complete: valuations[i]?.complete ?? true,
          unvaluedCount: valuations[i]?.unvaluedCount ?? 0,
          holdings: valuations[i]?.holdings ?? [],
          valuedAt,
          version: w.version,
          jobId: w.jobId,
        })),
      ),
    );
    // Superseded by a computation that started later: it announces its own result.
    const kept = work.flatMap((w, i) => {
      const valuation = valuations[i];
      const recordedAt = stored[i];
      return recordedAt !== undefined && valuation !== undefined ? [{ ...w, valuation, recordedAt }] : [];
    });
    const totals = await withWriteContext({ recordedBy: "system" }, () =>
      this.portfolios.recordValuations(
        kept.map((k) => ({
          id: k.portfolio.id,
          date: k.date,
          totalValue: k.valuation.totalValue,
          complete: k.valuation.complete,
          unvaluedCount: k.valuation.unvaluedCount,
          version: k.version,
          valuedAt,
          jobId: k.jobId,
        })),
      ),
    );
    await this.outbox.append(
      kept.map((k, i): EventEnvelope => ({
        id: eventIdOf("portfolio.valued", `${k.portfolio.id}|${k.date}|${valuedAt}`),
        event: "portfolio.valued",
        timestamp: valuedAt,
        data: {
          portfolioId: k.portfolio.id,
          valuationDate: k.date,
          totalValue: k.valuation.totalValue,
          currency: k.portfolio.baseCurrency,
          complete: k.valuation.complete,
          unvaluedCount: k.valuation.unvaluedCount,
          // The instant of the version this announces (the portfolio's total, else the valuation's): read with it, a
          // consumer sees what the event describes.
          asAt: totals[i] ?? k.recordedAt,
        },
      })),
    );
    await this.followExceptions(kept);
    return valuations;
  }

  /**
   * The exceptions of the stored valuations' portfolio-dates follow what they found. Each names the
   * import that marked its portfolio-date stale. A valuation that a newer computation replaced since
   * it was stored opens what it found but resolves nothing: the newer one decides that.
   */
  private async followExceptions(kept: readonly (ValuationWork & { valuation: Valuation })[]): Promise<void> {
    if (kept.length === 0) return;
    const refs = kept.map((k) => ({ portfolioId: k.portfolio.id, date: k.date }));
    const versions = await this.positions.valuationVersions(refs);
    await this.dataQuality.followValuations(
      kept.map((k, i) => ({
        ref: refs[i] ?? { portfolioId: k.portfolio.id, date: k.date },
        jobId: k.jobId,
        candidates: k.valuation.issues.map((issue) => issueToCandidate(issue, k.portfolio.id, this.settings.fxPivots)),
        current: versions.get(`${k.portfolio.id}|${k.date}`) === k.version,
        resolution: (exception) => resolutionOf(k.valuation, exception),
      })),
    );
  }
}

interface ValuationWork {
  portfolio: Portfolio;
  date: string;
  jobId: string | null;
  /** Taken before the inputs were read (see valueMany). */
  version: string;
  positions: readonly PositionInput[];
}
