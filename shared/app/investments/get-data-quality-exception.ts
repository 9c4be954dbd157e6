import type { DataQualityException } from "../../domain/data-quality-exception";
import { notFound } from "../../domain/errors";
import type { InvestmentDeps } from "./investment-deps";

/** One data-quality exception. */
export class GetDataQualityException {
  constructor(private readonly deps: Pick<InvestmentDeps, "exceptions">) {}

  async execute(id: string): Promise<DataQualityException> {
    const exception = await this.deps.exceptions.get(id);
    if (exception === undefined) throw notFound(`Exception '${id}'`);
    return exception;
  }
}
