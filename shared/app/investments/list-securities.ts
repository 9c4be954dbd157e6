import type { CursorPage, PageRequest } from "../../domain/page-request";
import type { Security } from "../../domain/security";
import type { SecurityFilter } from "../../ports/investment-repositories";
import type { InvestmentDeps } from "./investment-deps";

/** A page of securities by number or by cursor: every security can be walked, however many. */
export class ListSecurities {
  constructor(private readonly deps: Pick<InvestmentDeps, "securities">) {}

  execute({
    filter,
    page,
    asAt,
  }: {
    filter: SecurityFilter;
    page: PageRequest;
    asAt?: string | undefined;
  }): Promise<CursorPage<Security>> {
    return this.deps.securities.list(filter, page, asAt);
  }
}
