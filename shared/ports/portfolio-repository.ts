import type { CursorPage, PageRequest } from "../domain/page-request";
import type { Portfolio, PortfolioStatus } from "../domain/portfolio";
import type { AsAt, HistoryPage } from "./investment-repositories";

export interface PortfolioFilter {
  status?: PortfolioStatus;
  clientId?: string;
  currency?: string;
}

/** What a portfolio shows of its latest valuation. */
export interface RecordedValuation {
  date: string;
  totalValue: number;
  complete: boolean;
  unvaluedCount: number;
  version: string;
  valuedAt: string;
}

/** Stored portfolios; `code` is unique (case-insensitive) across the deployment. */
export interface PortfolioRepository {
  get(id: string, asAt?: AsAt): Promise<Portfolio | undefined>;
  /** Throws CONFLICT when the code is taken. */
  create(portfolio: Portfolio): Promise<void>;
  /**
   * Applies `change` to the stored portfolio atomically (optimistic concurrency, retried on a race).
   * Returns undefined when the portfolio does not exist; errors thrown by `change` propagate.
   */
  update(id: string, change: (current: Portfolio) => Portfolio): Promise<Portfolio | undefined>;
  /**
   * Sets totalValue, latestValuationDate, valuationComplete and unvaluedCount from a stored valuation,
   * unless the portfolio already shows a later date, or the same date from a computation of a greater
   * or equal version: so the portfolio's figures and the stored holdings always come from the same
   * computation. True when it was applied.
   */
  recordValuation(id: string, valuation: RecordedValuation): Promise<boolean>;
  /**
   * recordValuation for many at once (a few store calls in all); per valuation, when the portfolio's
   * version it made was recorded, or undefined when it was not applied. Of several valuations of one
   * portfolio, only the newest is applied. `jobId`: the import the valuation is for (its version's job).
   */
  recordValuations(
    valuations: readonly (RecordedValuation & { id: string; jobId?: string | null })[],
  ): Promise<(string | undefined)[]>;
  /**
   * Marks portfolios' valuation pending (their `valuationStatus`), once their stale markers are written:
   * a flag on the portfolio, so reads of one portfolio or a page cost no extra query. `markersWritten`:
   * the markers' write under way; the portfolios may be read meanwhile, their flags are written only
   * once it has succeeded (and not at all when it fails).
   */
  markValuationPending(ids: readonly string[], markersWritten?: Promise<void>): Promise<void>;
  /**
   * Sets each portfolio's flag to whether `stillStale` (asked after the portfolios were read) names it,
   * conditionally on the version read: a portfolio marked again meanwhile (marker first, flag after) is
   * read again and checked again.
   */
  clearValuationPending(
    ids: readonly string[],
    stillStale: (ids: readonly string[]) => Promise<ReadonlySet<string>>,
  ): Promise<void>;
  /** Up to `limit` portfolios flagged pending (the sweep checks they still have markers). */
  pendingValuations(limit: number): Promise<string[]>;
  /** By code; a page number or a cursor from the previous page (an export walks them all). */
  list(filter: PortfolioFilter, request: PageRequest, asAt?: AsAt): Promise<CursorPage<Portfolio>>;
  /** The versions of one portfolio, newest first; undefined when it does not exist. */
  history(id: string, request: PageRequest): Promise<HistoryPage<Portfolio> | undefined>;
  getMany(ids: readonly string[]): Promise<Map<string, Portfolio>>;
  /** Portfolio ids by code (keys upper-cased). */
  idsForCodes(codes: readonly string[]): Promise<Map<string, string>>;
  /** Composites that have any of these portfolios as members. */
  compositesContaining(memberIds: readonly string[]): Promise<Portfolio[]>;
}
