import type { ErrorDetail } from "./errors";
import {
  grossOf,
  netOf,
  transactionMove,
  transactionProblems,
  type Transaction,
  type TransactionImport,
} from "./transaction";

export interface TransactionMergeInput {
  id: string;
  portfolioId: string;
  /** The security the record names (resolved from securityId or isin); null: none; undefined: it names none. */
  securityId: string | null | undefined;
  record: TransactionImport;
  /** The stored transaction of this id, if any. */
  before: Transaction | undefined;
  now: string;
}

const required = (field: string): ErrorDetail => ({ field, message: "is required for a new transaction" });

/** The stored value unless the record carries the field (null clears it). */
const carried = <T>(value: T | undefined, stored: T): T => (value === undefined ? stored : value);

/**
 * A transaction as stored after a record: the stored one with the fields the record carries (absent
 * keeps, null clears), or a new one from the record (which then needs type, tradeDate and currency).
 * A buy's or sell's grossAmount is derived (quantity × price) when the record sends none but changes
 * quantity or price, or creates it; its netAmount (gross ± fees) when the record sends none but changes
 * any of what it derives from. The rules between fields are then checked on the merged result, so a
 * partial record is held to the same convention as a whole one.
 */
export function mergeTransaction(
  input: TransactionMergeInput,
): { transaction: Transaction } | { problems: ErrorDetail[] } {
  const { record: r, before: b, now } = input;
  const type = r.type ?? b?.type;
  const tradeDate = r.tradeDate ?? b?.tradeDate;
  const currency = r.currency ?? b?.currency;
  if (type === undefined || tradeDate === undefined || currency === undefined) {
    return {
      problems: [
        ...(type === undefined ? [required("type")] : []),
        ...(tradeDate === undefined ? [required("tradeDate")] : []),
        ...(currency === undefined ? [required("currency")] : []),
      ],
    };
  }
  const status = r.status ?? b?.status ?? "pending";
  const move = b === undefined ? "legal" : transactionMove(b.status, status);
  if (move === "illegal" && b !== undefined) {
    return {
      problems: [
        {
          field: "status",
          message: `transaction '${r.externalId}' is ${b.status}; it cannot move to ${status} (pending → settled | failed | cancelled only)`,
        },
      ],
    };
  }
  const trade = type === "buy" || type === "sell";
  const quantity = carried(r.quantity, b?.quantity ?? null);
  const price = carried(r.price, b?.price ?? null);
  const fees = carried(r.fees, b?.fees ?? null);
  const securityId = carried(input.securityId, b?.securityId ?? null);
  const settlementDate = carried(r.settlementDate, b?.settlementDate ?? null);

  // Derived where the record gives no figure of its own but changes what the figure comes from.
  const inputsChanged = b === undefined || r.type !== undefined || r.quantity !== undefined || r.price !== undefined;
  let grossAmount: number | null;
  if (typeof r.grossAmount === "number") grossAmount = r.grossAmount;
  else if (trade && (inputsChanged || r.grossAmount === null) && quantity !== null && price !== null)
    grossAmount = grossOf(quantity, price, currency);
  else grossAmount = carried(r.grossAmount, b?.grossAmount ?? null);
  let netAmount: number | undefined = r.netAmount;
  let netFrom: "record" | "derived" | "stored" = "record";
  if (netAmount === undefined) {
    const derive =
      trade && (inputsChanged || r.grossAmount !== undefined || r.fees !== undefined || r.currency !== undefined);
    netFrom = derive ? "derived" : "stored";
    netAmount = !derive ? b?.netAmount : grossAmount === null ? undefined : netOf(type, grossAmount, fees, currency);
  }

  const problems = transactionProblems({
    type,
    hasSecurity: securityId !== null,
    tradeDate,
    settlementDate,
    quantity,
    grossAmount,
    fees,
    // A derived figure is checked as one (its sign), not against the gross it came from.
    netAmount: netFrom === "derived" ? undefined : netAmount,
    currency,
  });
  if (netAmount === undefined) {
    problems.push({
      field: "netAmount",
      message: trade
        ? "netAmount is required, or quantity and price to derive it"
        : `netAmount is required for a ${type}`,
    });
  } else if (netAmount < 0 && netFrom === "stored") {
    // A figure stored before amounts were magnitudes, kept by a record that does not send one.
    problems.push({
      field: "netAmount",
      message: `the stored netAmount ${netAmount} is negative; send it as a magnitude (amounts are magnitudes, the type says which way the cash moves)`,
    });
  }
  if (problems.length > 0 || netAmount === undefined) return { problems };

  const history = b?.statusHistory ?? [];
  const source = carried(r.source, b?.source ?? null);
  return {
    transaction: {
      id: input.id,
      externalId: r.externalId,
      portfolioId: input.portfolioId,
      securityId,
      type,
      status,
      tradeDate,
      settlementDate,
      quantity,
      price,
      grossAmount,
      fees,
      netAmount,
      currency,
      source,
      statusHistory: move === "same" ? history : [...history, { status, at: now, source }],
      createdAt: b?.createdAt ?? now,
      updatedAt: now,
    },
  };
}
