import type { Portfolio } from "../../domain/portfolio";
import type { MessageBus } from "../../ports/message-bus";
import type { PortfolioValuations } from "./create-portfolio";
import type { InvestmentDeps } from "./investment-deps";
import type { ValuationService } from "./valuation-service";
import { enqueueValuations } from "./valuation-queue";

export interface NewCompositeValuationDeps extends Pick<InvestmentDeps, "portfolios" | "positions" | "clock"> {
  valuation: ValuationService;
  bus: MessageBus;
}

/** Has a new composite valued through the valuations queue, like any other stale portfolio-date. */
export class NewCompositeValuation implements PortfolioValuations {
  constructor(private readonly deps: NewCompositeValuationDeps) {}

  /** A new composite is valued on its members' latest snapshot date, if they have one (marked, then queued). */
  async valueNewComposite(composite: Portfolio): Promise<void> {
    const { valuation, positions, portfolios, bus, clock } = this.deps;
    const date = await valuation.firstCompositeDate(composite);
    if (date === undefined) return;
    await positions.markStale([{ portfolioId: composite.id, date }], {
      markedAt: clock.now().toISOString(),
      jobId: null,
      writing: false,
    });
    await portfolios.markValuationPending([composite.id]);
    await enqueueValuations(bus, [composite.id]);
  }
}
