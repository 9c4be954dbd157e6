import { fxPair, fxRateId, type FxRate } from "../../../domain/fx-rate";
import type { Clock } from "../../../ports/clock";
import type { FxRateRepository, PositionRepository } from "../../../ports/investment-repositories";
import { commitInBatches, type PreparedImport } from "./import-types";
import { flagDuplicates, type Problems, type RecordOf } from "./validate-payload";

export interface FxImportDeps {
  fxRates: FxRateRepository;
  positions: PositionRepository;
  clock: Clock;
}

export async function prepareFxRates(
  records: readonly (RecordOf<"fx-rates"> | undefined)[],
  problems: Problems,
  deps: FxImportDeps,
): Promise<PreparedImport> {
  flagDuplicates(
    records,
    (r) => `${fxPair(r.baseCurrency, r.quoteCurrency)}|${fxRateId(r)}`,
    (i) => `fxRates[${i}]`,
    problems,
  );
  problems.throwIfAny();
  const now = deps.clock.now().toISOString();
  const rates: FxRate[] = records.flatMap((r) =>
    r === undefined ? [] : [{ ...r, pair: fxPair(r.baseCurrency, r.quoteCurrency), updatedAt: now }],
  );
  return {
    received: records.length,
    async commit(_jobId, progress, stale) {
      if (rates.length > 0) {
        const from = rates.reduce((min, r) => (r.date < min ? r.date : min), rates[0]?.date ?? "");
        // A rate can be a leg of any snapshot's valuation (its base currency, or a cross through USD).
        // Marked before the rates are written (if none changes, the import takes back its markers).
        const snapshots = await deps.positions.snapshotsFrom(from);
        await stale.mark(snapshots.map(({ portfolioId, date }) => ({ portfolioId, date })));
      }
      const counts = await commitInBatches(rates, progress, (batch) => deps.fxRates.save(batch));
      return { counts, events: [], dataQuality: [] };
    },
  };
}
