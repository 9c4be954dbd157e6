import type { Portfolio } from "../../../domain/portfolio";
import type { Security } from "../../../domain/security";
import { mergeSecurity } from "../../../domain/security-merge";
import type { Clock } from "../../../ports/clock";
import type { SecurityRepository } from "../../../ports/investment-repositories";
import type { PortfolioRepository } from "../../../ports/portfolio-repository";
import { commitInBatches, type PreparedImport } from "./import-types";
import { type Problems, type RecordOf } from "./validate-payload";

export interface SecurityImportDeps {
  securities: SecurityRepository;
  portfolios: PortfolioRepository;
  clock: Clock;
}

/**
 * Securities: keyed by id, else by ISIN. Each record merges into the stored security (the fields it
 * carries, null clearing); the write is conditional on the version merged into, so a concurrent import
 * of the same security is a retryable 409, never a silently lost field.
 */
export async function prepareSecurities(
  records: readonly (RecordOf<"securities"> | undefined)[],
  problems: Problems,
  deps: SecurityImportDeps,
): Promise<PreparedImport> {
  const idByIsin = await deps.securities.idsForIsins(records.flatMap((r) => (r?.isin != null ? [r.isin] : [])));
  const funds = await deps.portfolios.getMany(
    records.flatMap((r) => (r?.lookThroughPortfolioId != null ? [r.lookThroughPortfolioId] : [])),
  );
  const idOf = (r: NonNullable<(typeof records)[number]>): string => {
    const known = r.isin == null ? undefined : idByIsin.get(r.isin);
    return r.id ?? known ?? `sec_${r.isin ?? ""}`;
  };
  const existing = await deps.securities.getMany(records.flatMap((r) => (r === undefined ? [] : [idOf(r)])));
  const now = deps.clock.now().toISOString();
  const securities: Security[] = [];
  // One detail per repeat: the same security twice, or one ISIN claimed by two securities.
  const firstById = new Map<string, number>();
  const firstByIsin = new Map<string, number>();
  records.forEach((r, i) => {
    if (r === undefined) return;
    const known = r.isin == null ? undefined : idByIsin.get(r.isin);
    if (r.id !== undefined && known !== undefined && known !== r.id) {
      problems.add(`securities[${i}].isin`, `ISIN ${r.isin ?? ""} already identifies security '${known}'`);
      return;
    }
    const id = idOf(r);
    const sameId = firstById.get(id);
    const sameIsin = r.isin == null ? undefined : firstByIsin.get(r.isin);
    if (sameId !== undefined)
      return void problems.add(`securities[${i}]`, `duplicates record ${sameId} of this payload`);
    if (sameIsin !== undefined)
      return void problems.add(`securities[${i}].isin`, `duplicates the ISIN of record ${sameIsin} of this payload`);
    firstById.set(id, i);
    if (r.isin != null) firstByIsin.set(r.isin, i);
    if (r.lookThroughPortfolioId != null) {
      const fund: Portfolio | undefined = funds.get(r.lookThroughPortfolioId);
      if (fund === undefined)
        return void problems.add(
          `securities[${i}].lookThroughPortfolioId`,
          `portfolio '${r.lookThroughPortfolioId}' does not exist`,
        );
      if (fund.type !== "fund")
        return void problems.add(
          `securities[${i}].lookThroughPortfolioId`,
          `portfolio '${fund.code}' is not a fund portfolio`,
        );
    }
    const merged = mergeSecurity(id, r, existing.get(id), now);
    if ("problems" in merged) {
      for (const p of merged.problems) problems.add(`securities[${i}].${p.field}`, p.message);
      return;
    }
    securities.push(merged.security);
  });
  problems.throwIfAny();
  return {
    received: records.length,
    async commit(_jobId, progress) {
      const counts = await commitInBatches(securities, progress, (batch) => deps.securities.save(batch, existing));
      return { counts, events: [], dataQuality: [] };
    },
  };
}
