import { AppError, notFound } from "../../domain/errors";
import { canTransition, type PortfolioPatch, type PortfolioView } from "../../domain/portfolio";
import type { InvestmentDeps } from "./investment-deps";
import { portfolioView } from "./portfolio-view";

/** Renames a portfolio or changes its status (archived is final). */
export class UpdatePortfolio {
  constructor(private readonly deps: Pick<InvestmentDeps, "portfolios" | "clock">) {}

  async execute({ id, patch }: { id: string; patch: PortfolioPatch }): Promise<PortfolioView> {
    const updated = await this.deps.portfolios.update(id, (current) => {
      if (current.status === "archived") {
        throw new AppError("CONFLICT", "The portfolio is archived and can no longer change");
      }
      if (patch.status !== undefined && !canTransition(current.status, patch.status)) {
        throw new AppError("CONFLICT", `A portfolio cannot move from ${current.status} to ${patch.status}`);
      }
      return {
        ...current,
        name: patch.name ?? current.name,
        status: patch.status ?? current.status,
        updatedAt: this.deps.clock.now().toISOString(),
      };
    });
    if (updated === undefined) throw notFound(`Portfolio '${id}'`);
    return portfolioView(updated);
  }
}
