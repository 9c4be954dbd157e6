import type { Portfolio } from "../../../domain/portfolio";
import type { Security } from "../../../domain/security";
import type { Clock } from "../../../ports/clock";
import type { SecurityRepository } from "../../../ports/investment-repositories";
import type { PortfolioRepository } from "../../../ports/portfolio-repository";
import { commitInBatches, type PreparedImport } from "./import-types";
import { parseRecords, type Problems } from "./validate-payload";

export interface SecurityImportDeps {
  securities: SecurityRepository;
  portfolios: PortfolioRepository;
  clock: Clock;
}

export async function prepareSecurities(
  body: unknown,
  problems: Problems,
  deps: SecurityImportDeps,
): Promise<PreparedImport> {
  const records = parseRecords("securities", body, problems);
  const idByIsin = await deps.securities.idsForIsins(records.flatMap((r) => (r?.isin !== undefined ? [r.isin] : [])));
  const funds = await deps.portfolios.getMany(
    records.flatMap((r) => (r?.lookThroughPortfolioId !== undefined ? [r.lookThroughPortfolioId] : [])),
  );
  const now = deps.clock.now().toISOString();
  const securities: Security[] = [];
  // One detail per repeat: the same security twice, or one ISIN claimed by two securities.
  const firstById = new Map<string, number>();
  const firstByIsin = new Map<string, number>();
  records.forEach((r, i) => {
    if (r === undefined) return;
    const known = r.isin === undefined ? undefined : idByIsin.get(r.isin);
    if (r.id !== undefined && known !== undefined && known !== r.id) {
      problems.add(`securities[${i}].isin`, `ISIN ${r.isin} already identifies security '${known}'`);
      return;
    }
    const id = r.id ?? known ?? `sec_${r.isin ?? ""}`;
    const sameId = firstById.get(id);
    const sameIsin = r.isin === undefined ? undefined : firstByIsin.get(r.isin);
    if (sameId !== undefined)
      return void problems.add(`securities[${i}]`, `duplicates record ${sameId} of this payload`);
    if (sameIsin !== undefined)
      return void problems.add(`securities[${i}].isin`, `duplicates the ISIN of record ${sameIsin} of this payload`);
    firstById.set(id, i);
    if (r.isin !== undefined) firstByIsin.set(r.isin, i);
    if (r.lookThroughPortfolioId !== undefined) {
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
    securities.push({
      id,
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
  problems.throwIfAny();
  return {
    received: records.length,
    async commit(_jobId, progress) {
      const counts = await commitInBatches(securities, progress, (batch) => deps.securities.save(batch));
      return { counts, events: [], dataQuality: [] };
    },
  };
}
