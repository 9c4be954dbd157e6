import { randomUUID } from "node:crypto";
import { AppError } from "../../domain/errors";
import { newPortfolio, type Portfolio, type PortfolioCreate, type PortfolioView } from "../../domain/portfolio";
import type { InvestmentDeps } from "./investment-deps";
import { portfolioView } from "./portfolio-view";

/** What portfolio creation needs of valuation. */
export interface PortfolioValuations {
  /** Has a new composite valued (its members may already have positions). */
  valueNewComposite(composite: Portfolio): Promise<void>;
}

export interface CreatePortfolioDeps extends Pick<InvestmentDeps, "portfolios" | "clock"> {
  valuations?: PortfolioValuations;
}

/** Creates a portfolio (standard, composite with its members, or fund); a composite is valued on its members' latest date. */
export class CreatePortfolio {
  constructor(private readonly deps: CreatePortfolioDeps) {}

  async execute(input: PortfolioCreate): Promise<PortfolioView> {
    if (input.memberIds !== undefined) await this.checkMembers(input.memberIds);
    const now = this.deps.clock.now().toISOString();
    const portfolio = newPortfolio(
      {
        id: randomUUID(),
        name: input.name,
        code: input.code,
        clientId: input.clientId,
        baseCurrency: input.baseCurrency,
        type: input.type,
        status: input.status,
        ...(input.memberIds !== undefined ? { memberIds: input.memberIds } : {}),
      },
      now,
    );
    await this.deps.portfolios.create(portfolio);
    if (portfolio.type !== "composite") return portfolioView(portfolio);
    await this.deps.valuations?.valueNewComposite(portfolio);
    return portfolioView((await this.deps.portfolios.get(portfolio.id)) ?? portfolio);
  }

  private async checkMembers(memberIds: string[]): Promise<void> {
    const details: { field: string; message: string }[] = [];
    await Promise.all(
      memberIds.map(async (memberId, index) => {
        const member = await this.deps.portfolios.get(memberId);
        if (member === undefined)
          details.push({ field: `memberIds[${index}]`, message: `portfolio '${memberId}' does not exist` });
        else if (member.type === "composite")
          details.push({
            field: `memberIds[${index}]`,
            message: "a composite cannot be a member of another composite",
          });
        else if (member.status === "archived")
          details.push({ field: `memberIds[${index}]`, message: "an archived portfolio cannot become a member" });
      }),
    );
    if (details.length > 0) {
      details.sort((a, b) => a.field.localeCompare(b.field, "en", { numeric: true }));
      throw new AppError("VALIDATION_ERROR", "The portfolio is not valid", { details });
    }
  }
}
