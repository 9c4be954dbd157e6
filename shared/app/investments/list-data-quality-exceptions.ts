import type { DataQualityException } from "../../domain/data-quality-exception";
import type { CursorPage, PageRequest } from "../../domain/page-request";
import type { DataQualityExceptionFilter } from "../../ports/investment-repositories";
import type { InvestmentDeps } from "./investment-deps";

/** A page of data-quality exceptions. */
export class ListDataQualityExceptions {
  constructor(private readonly deps: Pick<InvestmentDeps, "exceptions">) {}

  execute({
    filter,
    page,
  }: {
    filter: DataQualityExceptionFilter;
    page: PageRequest;
  }): Promise<CursorPage<DataQualityException>> {
    return this.deps.exceptions.list(filter, page);
  }
}
