import { createHash } from "node:crypto";
import { eventIdOf, type EventEnvelope } from "../../../domain/events";
import type { Transaction } from "../../../domain/transaction";
import { mergeTransaction } from "../../../domain/transaction-merge";
import type { Clock } from "../../../ports/clock";
import type { TransactionRepository, WriteCounts } from "../../../ports/investment-repositories";
import { sameTransaction } from "./same-transaction";
import { commitInBatches, type PreparedImport } from "./import-types";
import type { ReferenceResolver, SecurityRef } from "./reference-resolver";
import { flagDuplicates, type Problems, type RecordOf } from "./validate-payload";

export interface TransactionImportDeps {
  transactions: TransactionRepository;
  references: ReferenceResolver;
  clock: Clock;
}

/** A transaction's id derives from its portfolio and external id, so a re-import finds it again. */
export const transactionIdOf = (portfolioId: string, externalId: string): string =>
  `txn_${createHash("sha256").update(`${portfolioId}\u0000${externalId}`).digest("hex").slice(0, 32)}`;

/** `asAt`: when the settled version was recorded (a consumer reading with it sees what the event announces). */
export function settledEvent(t: Transaction, asAt: string | undefined): EventEnvelope {
  return {
    id: eventIdOf("transaction.settled", t.id),
    event: "transaction.settled",
    timestamp: t.statusHistory.findLast((h) => h.status === "settled")?.at ?? t.updatedAt,
    data: {
      transactionId: t.id,
      portfolioId: t.portfolioId,
      securityId: t.securityId,
      settlementDate: t.settlementDate,
      quantity: t.quantity,
      netAmount: t.netAmount,
      currency: t.currency,
      asAt: asAt ?? null,
    },
  };
}

/**
 * Transactions: keyed by portfolio and external id. A record merges into the stored transaction (the
 * fields it carries, null clearing), moving it along pending → settled | failed | cancelled only.
 */
export async function prepareTransactions(
  records: readonly (RecordOf<"transactions"> | undefined)[],
  problems: Problems,
  deps: TransactionImportDeps,
): Promise<PreparedImport> {
  await deps.references.loadPortfolios(records);
  // A record naming a security (null names none: a cash-only transaction).
  const securityRef = (r: (typeof records)[number]): SecurityRef | undefined =>
    r !== undefined && (r.securityId != null || (r.securityId === undefined && r.isin != null))
      ? { securityId: r.securityId ?? undefined, isin: r.isin ?? undefined }
      : undefined;
  await deps.references.loadSecurities(records.map(securityRef));
  const resolved = records.map((r, i) => {
    if (r === undefined) return undefined;
    const portfolio = deps.references.portfolio(r, `transactions[${i}]`, problems, { allowComposite: false });
    const ref = securityRef(r);
    // undefined: the record names no security (the stored one stays); null: it clears it.
    const security =
      ref !== undefined
        ? deps.references.security(ref, `transactions[${i}]`, problems)
        : r.securityId === null || r.isin === null
          ? null
          : undefined;
    if (portfolio === undefined || (ref !== undefined && security === undefined)) return undefined;
    return {
      record: r,
      portfolioId: portfolio.id,
      securityId: security === null ? null : security?.id,
      id: transactionIdOf(portfolio.id, r.externalId),
    };
  });
  flagDuplicates(
    resolved,
    (r) => r.id,
    (i) => `transactions[${i}].externalId`,
    problems,
  );
  const existing = await deps.transactions.getMany(
    resolved.flatMap((r) => (r === undefined ? [] : [{ portfolioId: r.portfolioId, id: r.id }])),
  );
  const now = deps.clock.now().toISOString();
  const next: { transaction: Transaction; before: Transaction | undefined }[] = [];
  resolved.forEach((r, i) => {
    if (r === undefined) return;
    const before = existing.get(r.id);
    const merged = mergeTransaction({ ...r, before, now });
    if ("problems" in merged) {
      for (const p of merged.problems) problems.add(`transactions[${i}].${p.field}`, p.message);
      return;
    }
    next.push({ transaction: merged.transaction, before });
  });
  problems.throwIfAny();
  return {
    received: records.length,
    async commit(_jobId, progress) {
      // Every settled transaction of the payload, as stored after this import: the event id makes it
      // one announcement, and a retry after a crash between the two writes still announces it.
      const settled: EventEnvelope[] = [];
      const counts = await commitInBatches(next, progress, async (batch) => {
        const batchCounts: WriteCounts = { created: 0, updated: 0, unchanged: 0 };
        const changes: { next: Transaction; previous: Transaction | undefined }[] = [];
        for (const { transaction, before } of batch) {
          const unchanged = before !== undefined && sameTransaction(before, transaction);
          if (before === undefined) batchCounts.created++;
          else if (unchanged) batchCounts.unchanged++;
          else batchCounts.updated++;
          if (!unchanged) changes.push({ next: transaction, previous: before });
          else if (before.status === "settled")
            settled.push(settledEvent(before, deps.transactions.recordedAtOf(before)));
        }
        const recordedAt = await deps.transactions.save(changes);
        changes.forEach(({ next: stored }, i) => {
          if (stored.status === "settled") settled.push(settledEvent(stored, recordedAt[i]));
        });
        return batchCounts;
      });
      return { counts, events: settled, dataQuality: [] };
    },
  };
}
