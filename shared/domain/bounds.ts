import { z } from "zod";
import { MAX_DECIMALS, withinMaxDecimals } from "./storable";

/*
 * Bounds on the numbers imports accept. Valuation multiplies quantity × price × FX rate (a cross rate
 * through USD multiplies two rates), so every input is bounded to keep that product finite with room
 * to spare: at most 1e12 × 1e9 × (1e9)² = 1e39, far below the 1.8e308 a JSON number can hold, and
 * well within the 34 significant digits valuation computes with. Amounts are bounded to 1e15 for
 * the same reason (a JSON number holds every minor unit exactly only up to 2^53 ≈ 9e15 of them).
 * Real figures are many orders of magnitude smaller; these bounds only stop values no valuation can use.
 */
export const MAX_QUANTITY = 1e12;
export const MAX_PRICE = 1e9;
export const MIN_FX_RATE = 1e-9;
export const MAX_FX_RATE = 1e9;
export const MAX_AMOUNT = 1e15;

/** A quantity of units: finite, |quantity| ≤ 1e12. */
export const quantityNumber = z
  .number()
  .finite()
  .min(-MAX_QUANTITY, { message: `must be at least -${MAX_QUANTITY.toExponential()}` })
  .max(MAX_QUANTITY, { message: `must be at most ${MAX_QUANTITY.toExponential()}` })
  .meta({ description: `Units held; |quantity| ≤ ${MAX_QUANTITY.toExponential()}` });

const decimals = {
  message: `must have at most ${MAX_DECIMALS} decimal places`,
  // Only where the value is a number in range: out of range it has its own issue already.
  when: (payload: z.core.ParsePayload) => payload.issues.length === 0,
};

/** A price per unit: 0 < price ≤ 1e9, at most 12 decimal places (a transaction's price may be 0: a free transfer). */
export const priceNumber = z
  .number()
  .positive()
  .finite()
  .max(MAX_PRICE, { message: `must be at most ${MAX_PRICE.toExponential()}` })
  .refine(withinMaxDecimals, decimals)
  .meta({
    description: `Price per unit, above 0 and at most ${MAX_PRICE.toExponential()}, with at most ${MAX_DECIMALS} decimal places`,
  });

/** A transaction's price: 0 ≤ price ≤ 1e9 (0: a free transfer), at most 12 decimal places. */
export const transactionPriceNumber = z
  .number()
  .nonnegative()
  .finite()
  .max(MAX_PRICE, { message: `must be at most ${MAX_PRICE.toExponential()}` })
  .refine(withinMaxDecimals, decimals)
  .meta({
    description: `Price per unit, 0 to ${MAX_PRICE.toExponential()}, with at most ${MAX_DECIMALS} decimal places`,
  });

/** An FX rate: 1e-9 ≤ rate ≤ 1e9, so that its inverse is bounded too. */
export const fxRateNumber = z
  .number()
  .finite()
  .min(MIN_FX_RATE, { message: `must be at least ${MIN_FX_RATE.toExponential()}` })
  .max(MAX_FX_RATE, { message: `must be at most ${MAX_FX_RATE.toExponential()}` })
  .refine(withinMaxDecimals, decimals)
  .meta({
    description: `1 baseCurrency in quoteCurrency; between ${MIN_FX_RATE.toExponential()} and ${MAX_FX_RATE.toExponential()} so that the inverse is bounded too, with at most ${MAX_DECIMALS} decimal places`,
  });

/** A money amount: finite, |amount| ≤ 1e15. */
export const amountNumber = z
  .number()
  .finite()
  .min(-MAX_AMOUNT, { message: `must be at least -${MAX_AMOUNT.toExponential()}` })
  .max(MAX_AMOUNT, { message: `must be at most ${MAX_AMOUNT.toExponential()}` });

/**
 * A transaction's amount: a magnitude, 0 ≤ amount ≤ 1e15. The direction of the cash is the
 * transaction type's (a buy pays, a sell receives), never the sign.
 */
export const magnitudeNumber = z
  .number()
  .finite()
  .min(0, { message: "must not be negative: amounts are magnitudes, the type says which way the cash moves" })
  .max(MAX_AMOUNT, { message: `must be at most ${MAX_AMOUNT.toExponential()}` });
