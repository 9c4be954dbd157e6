import { randomUUID } from "node:crypto";
import { AppError, notFound } from "../../domain/errors";
import { paginationOf, type Pagination } from "../../domain/pagination";
import type { CursorPage, PageRequest } from "../../domain/page-request";
import { canTransition, type Portfolio, type PortfolioCreate, type PortfolioPatch, type PortfolioView } from "../../domain/portfolio";
import type { Clock } from "../../ports/clock";
import type { PortfolioFilter, PortfolioRepository } from "../../ports/portfolio-repository";

/** What portfolio creation needs of valuation. */
export interface PortfolioValuations {
  /** Has a new composite valued (its members may already have positions). */
  valueNewComposite(composite: Portfolio): Promise<void>;
}

const noValuations: PortfolioValuations = { valueNewComposite: async () => {} };

/** The API's view: `valuationStatus` as the repository read it (a portfolio never flagged is current). */
const view = (portfolio: Portfolio): PortfolioView => ({ ...portfolio, valuationStatus: portfolio.valuationStatus ?? "current" });

/** Portfolio reads, creation and status changes. */
export class Portfolios {
  constructor(
    private readonly repository: PortfolioRepository,
    private readonly clock: Clock,
    private readonly valuations: PortfolioValuations = noValuations,
  ) {}

  async list(filter: PortfolioFilter, page: number, pageSize: number): Promise<{ items: PortfolioView[]; pagination: Pagination }> {
    const result = await this.repository.list(filter, { page, pageSize });
    return { items: result.items.map(view), pagination: paginationOf(page, pageSize, result.totalItems) };
  }

  /** A page of the same list by number or by cursor: every portfolio can be walked, however many. */
  async listPage(filter: PortfolioFilter, request: PageRequest): Promise<CursorPage<PortfolioView>> {
    const result = await this.repository.list(filter, request);
    return { ...result, items: result.items.map(view) };
  }

  async get(id: string): Promise<PortfolioView> {
    const portfolio = await this.repository.get(id);
    if (portfolio === undefined) throw notFound(`Portfolio '${id}'`);
    return view(portfolio);
  }

  async create(input: PortfolioCreate): Promise<PortfolioView> {
    if (input.memberIds !== undefined) await this.checkMembers(input.memberIds);
    const now = this.clock.now().toISOString();
    const portfolio: Portfolio = {
      id: randomUUID(),
      name: input.name,
      code: input.code,
      clientId: input.clientId,
      baseCurrency: input.baseCurrency,
      type: input.type,
      status: input.status,
      ...(input.memberIds !== undefined ? { memberIds: input.memberIds } : {}),
      totalValue: null,
      latestValuationDate: null,
      createdAt: now,
      updatedAt: now,
    };
    await this.repository.create(portfolio);
    if (portfolio.type !== "composite") return view(portfolio);
    await this.valuations.valueNewComposite(portfolio);
    return view((await this.repository.get(portfolio.id)) ?? portfolio);
  }

  async update(id: string, patch: PortfolioPatch): Promise<PortfolioView> {
    const updated = await this.repository.update(id, (current) => {
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
        updatedAt: this.clock.now().toISOString(),
      };
    });
    if (updated === undefined) throw notFound(`Portfolio '${id}'`);
    return view(updated);
  }

  private async checkMembers(memberIds: string[]): Promise<void> {
    const details: { field: string; message: string }[] = [];
    await Promise.all(
      memberIds.map(async (memberId, index) => {
        const member = await this.repository.get(memberId);
        if (member === undefined) details.push({ field: `memberIds[${index}]`, message: `portfolio '${memberId}' does not exist` });
        else if (member.type === "composite") details.push({ field: `memberIds[${index}]`, message: "a composite cannot be a member of another composite" });
        else if (member.status === "archived") details.push({ field: `memberIds[${index}]`, message: "an archived portfolio cannot become a member" });
      }),
    );
    if (details.length > 0) {
      details.sort((a, b) => a.field.localeCompare(b.field, "en", { numeric: true }));
      throw new AppError("VALIDATION_ERROR", "The portfolio is not valid", { details });
    }
  }
}
