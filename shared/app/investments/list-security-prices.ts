import type { CursorPage, PageRequest } from "../../domain/page-request";
import type { Price } from "../../domain/price";
import type { PriceFilter } from "../../ports/investment-repositories";
import { findSecurity } from "./find-security";
import type { InvestmentDeps } from "./investment-deps";

/** A page of one security's prices (the security by id or ISIN). */
export class ListSecurityPrices {
  constructor(private readonly deps: Pick<InvestmentDeps, "securities" | "prices">) {}

  async execute({
    security,
    filter,
    page,
    asAt,
  }: {
    security: string;
    filter: PriceFilter;
    page: PageRequest;
    asAt?: string | undefined;
  }): Promise<CursorPage<Price>> {
    const found = await findSecurity(this.deps.securities, security, asAt);
    return this.deps.prices.list(found.id, filter, page, asAt);
  }
}
