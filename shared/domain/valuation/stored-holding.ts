import type { Holding, UnvaluedReason } from "./valuation";

/** A holding as stored before `unvalued` and `fxPivot` existed: both may be absent. */
export type StoredHolding = Omit<Holding, "unvalued" | "fxPivot"> & Partial<Pick<Holding, "unvalued" | "fxPivot">>;

/**
 * A stored holding with every field the API shows. Holdings valued before `unvalued` and `fxPivot`
 * existed get them from what they do carry: the only pivot then was USD, and an unvalued holding
 * without a price had none, one with a price but no rate had no FX path, and one with both was out
 * of range.
 */
export function completeHolding(h: StoredHolding): Holding {
  if (h.unvalued !== undefined && h.fxPivot !== undefined) return h as Holding;
  let unvalued: UnvaluedReason | null = h.unvalued ?? null;
  if (h.unvalued === undefined && h.marketValue === null)
    unvalued = h.price === null ? "MISSING_PRICE" : h.fxRate === null ? "MISSING_FX_RATE" : "VALUE_OUT_OF_RANGE";
  const fxPivot = h.fxPivot !== undefined ? h.fxPivot : h.fxMethod === "cross" ? "USD" : null;
  return { ...h, fxPivot, unvalued };
}
