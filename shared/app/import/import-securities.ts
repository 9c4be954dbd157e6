import type { Portfolio } from "../../domain/portfolio";
import type { Security } from "../../domain/security";
import type { Clock } from "../../ports/clock";
import type { SecurityRepository } from "../../ports/investment-repositories";
import type { PortfolioRepository } from "../../ports/portfolio-repository";
import type { PreparedImport } from "./import-types";
import { flagDuplicates, parseRecords, type Problems } from "./validate-payload";

export interface SecurityImportDeps {
  securities: SecurityRepository;
  portfolios: PortfolioRepository;
  clock: Clock;
}

export async function prepareSecurities(body: unknown, problems: Problems, deps: SecurityImportDeps): Promise<PreparedImport> {
  const records = parseRecords("securities", body, problems);
  const idByIsin = await deps.securities.idsForIsins(records.flatMap((r) => (r?.isin !== undefined ? [r.isin] : [])));
  const funds = await deps.portfolios.getMany(records.flatMap((r) => (r?.lookThroughPortfolioId !== undefined ? [r.lookThroughPortfolioId] : [])));
  const now = deps.clock.now().toISOString();
  const securities: Security[] = [];
  records.forEach((r, i) => {
    if (r === undefined) return;
    const known = r.isin === undefined ? undefined : idByIsin.get(r.isin);
    if (r.id !== undefined && known !== undefined && known !== r.id) {
      problems.add(`securities[${i}].isin`, `ISIN ${r.isin} already identifies security '${known}'`);
      return;
    }
    if (r.lookThroughPortfolioId !== undefined) {
      const fund: Portfolio | undefined = funds.get(r.lookThroughPortfolioId);
      if (fund === undefined) return void problems.add(`securities[${i}].lookThroughPortfolioId`, `portfolio '${r.lookThroughPortfolioId}' does not exist`);
      if (fund.type !== "fund") return void problems.add(`securities[${i}].lookThroughPortfolioId`, `portfolio '${fund.code}' is not a fund portfolio`);
    }
    securities.push({
      id: r.id ?? known ?? `sec_${r.isin ?? ""}`,
      isin: r.isin ?? null,
      cusip: r.cusip ?? null,
      sedol: r.sedol ?? null,
      figi: r.figi ?? null,
      ticker: r.ticker ?? null,
      name: r.name,
      assetClass: r.assetClass,
      currency: r.currency,
      country: r.country ?? null,
      exchange: r.exchange ?? null,
      lookThroughPortfolioId: r.lookThroughPortfolioId ?? null,
      status: r.status,
      createdAt: now,
      updatedAt: now,
    });
  });
  flagDuplicates(records, (r) => r.id ?? r.isin, (i) => `securities[${i}]`, problems);
  flagDuplicates(records, (r) => r.isin, (i) => `securities[${i}].isin`, problems);
  problems.throwIfAny();
  return {
    received: records.length,
    async commit() {
      const counts = await deps.securities.save(securities);
      return { counts, events: [], exceptions: [], affected: async () => [] };
    },
  };
}
