import { z } from "zod";
import { amountNumber, quantityNumber } from "./bounds";
import { currencyCode } from "./currency";
import { isoDate } from "./dates";
import { idParam } from "./ids";
import { isinSchema } from "./isin";

/**
 * One record of `POST /api/v1/import/positions`. The records of one portfolio and date form a snapshot.
 * A position the stored snapshot already has keeps its stored `costBasis` and `currency` when the
 * record leaves them out; `null` clears them.
 */
export const positionImportSchema = z
  .strictObject({
    portfolioId: idParam(200).optional(),
    portfolioCode: z.string().min(1).max(50).optional(),
    securityId: idParam(200).optional(),
    isin: isinSchema.optional(),
    date: isoDate,
    quantity: quantityNumber,
    costBasis: amountNumber.nullable().optional().meta({
      description:
        "Cost basis; |costBasis| ≤ 1e15. Left out: a position already in the snapshot keeps its stored value; null clears it",
    }),
    currency: currencyCode.nullable().optional().meta({
      description:
        "Currency of the cost basis. Left out: a position already in the snapshot keeps its stored value; null clears it",
    }),
  })
  .refine((p) => p.portfolioId !== undefined || p.portfolioCode !== undefined, {
    message: "portfolioId or portfolioCode is required",
    path: ["portfolioId"],
  })
  .refine((p) => p.securityId !== undefined || p.isin !== undefined, {
    message: "securityId or isin is required",
    path: ["securityId"],
  })
  .meta({ id: "PositionImport" });
export type PositionImport = z.infer<typeof positionImportSchema>;

export interface Position {
  securityId: string;
  quantity: number;
  costBasis: number | null;
  currency: string | null;
}

/** The positions of one portfolio on one date; a new import for that date replaces it whole. */
export interface PositionSnapshot {
  portfolioId: string;
  date: string;
  positions: Position[];
  /** The currencies of the snapshot's securities (which FX rates can change its value). */
  currencies: string[];
  updatedAt: string;
  /** The refresh job that wrote it last (absent on snapshots stored before jobs were recorded on them). */
  jobId?: string | null;
  /**
   * While a file's later import calls may still add to it: the positions its job replaced and has not
   * restated yet, so that a later call's row for one of them counts as unchanged or updated rather
   * than created, and `removed` ends exact. Dropped when the file's last call is stored.
   */
  replaced?: Position[];
}
