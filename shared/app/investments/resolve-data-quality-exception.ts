import type { DataQualityException } from "../../domain/data-quality-exception";
import { AppError, notFound } from "../../domain/errors";
import type { InvestmentDeps } from "./investment-deps";

/** Marks a data-quality exception resolved (once). */
export class ResolveDataQualityException {
  constructor(private readonly deps: Pick<InvestmentDeps, "exceptions" | "clock">) {}

  async execute(id: string): Promise<DataQualityException> {
    const updated = await this.deps.exceptions.update(id, (current) => {
      if (current.status === "resolved") throw new AppError("CONFLICT", "The exception is already resolved");
      return { ...current, status: "resolved", resolvedAt: this.deps.clock.now().toISOString() };
    });
    if (updated === undefined) throw notFound(`Exception '${id}'`);
    return updated;
  }
}
