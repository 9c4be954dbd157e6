import type { FxRateView } from "../../domain/fx-rate";
import type { CursorPage, PageRequest } from "../../domain/page-request";
import type { FxRateFilter } from "../../ports/investment-repositories";
import type { InvestmentDeps } from "./investment-deps";

/** A page of FX rates (by date, then pair, then source), as they are or as they were known at `asAt`. */
export class ListFxRates {
  constructor(private readonly deps: Pick<InvestmentDeps, "fxRates">) {}

  async execute({
    filter,
    page,
    asAt,
  }: {
    filter: FxRateFilter;
    page: PageRequest;
    asAt?: string | undefined;
  }): Promise<CursorPage<FxRateView>> {
    const result = await this.deps.fxRates.list(filter, page, asAt);
    return {
      ...result,
      items: result.items.map(({ baseCurrency, quoteCurrency, date, rate, source }) => ({
        baseCurrency,
        quoteCurrency,
        date,
        rate,
        source,
      })),
    };
  }
}
