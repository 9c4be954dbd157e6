import type { DataQualityException } from "../domain/data-quality-exception";
import type { FxRate } from "../domain/fx-rate";
import type { Job } from "../domain/job";
import type { CursorPage, PageRequest } from "../domain/page-request";
import type { PositionSnapshot } from "../domain/position";
import type { Price, PriceType } from "../domain/price";
import type { Security } from "../domain/security";
import type { Transaction, TransactionStatus, TransactionType } from "../domain/transaction";
import type { FxTable, Holding, PricePoint, PriceReach } from "../domain/valuation";
import type { HistoryEntry } from "../domain/versions";

export interface WriteCounts {
  created: number;
  updated: number;
  unchanged: number;
}

export interface SecurityFilter {
  isin?: string;
  ticker?: string;
  assetClass?: string;
  currency?: string;
  /** Name starts with (case-insensitive). */
  q?: string;
}

/**
 * Reads take `asAt` (an ISO instant, UTC with milliseconds): the answer as the service knew it then
 * (API.md, "Time travel"); without it, as it is now. Every write that changes a record records a version.
 */
export type AsAt = string | undefined;

/** A page of a record's versions, newest first. */
export type HistoryPage<T> = CursorPage<HistoryEntry<T>>;

/** Securities, with an ISIN → id lookup beside them. */
export interface SecurityRepository {
  get(id: string, asAt?: AsAt): Promise<Security | undefined>;
  getMany(ids: readonly string[], asAt?: AsAt): Promise<Map<string, Security>>;
  /** The current ISIN → id lookup (imports). */
  idsForIsins(isins: readonly string[]): Promise<Map<string, string>>;
  /** By id; a page number or a cursor from the previous page (an export walks them all). */
  list(filter: SecurityFilter, request: PageRequest, asAt?: AsAt): Promise<CursorPage<Security>>;
  /**
   * Writes the securities, recording a version of each change. With `previous` (what getMany returned
   * for them, merged into), each is written only over the version read (or, absent there, only if still
   * absent): a lost race is a retryable CONFLICT. Without it, a lost race is read and written again.
   */
  save(securities: readonly Security[], previous?: ReadonlyMap<string, Security>): Promise<WriteCounts>;
  /** The versions of one security, newest first; undefined when it does not exist. */
  history(id: string, request: PageRequest): Promise<HistoryPage<Security> | undefined>;
}

export interface PriceFilter {
  from?: string;
  to?: string;
  type?: PriceType;
}

/** One price of a security (its natural key; `source` omitted: every source of that date and type). */
export interface PriceKey {
  date: string;
  type: PriceType;
  source?: string;
}

/** Prices by security, date, type and source, plus each security's newest point per type and source. */
export interface PriceRepository {
  /** `latest`, when given, is what latest() returned for these securities just before (saves a read). */
  save(prices: readonly Price[], latest?: ReadonlyMap<string, readonly PricePoint[]>): Promise<WriteCounts>;
  /** The stored prices among these (by security and `date|type|source` id), keyed `securityId|id`. */
  getMany(refs: readonly { securityId: string; id: string }[]): Promise<Map<string, Price>>;
  /** The newest stored point of each type and source, per security. */
  latest(securityIds: readonly string[]): Promise<Map<string, PricePoint[]>>;
  /** The stored points a valuation on `date` needs: for each of `types`, every source's point on that type's newest date on or before it. */
  forValuation(
    securityIds: readonly string[],
    date: string,
    types: readonly PricePoint["type"][],
  ): Promise<Map<string, PricePoint[]>>;
  list(securityId: string, filter: PriceFilter, request: PageRequest, asAt?: AsAt): Promise<CursorPage<Price>>;
  /** The versions of one price (every source of its date and type unless `source` is given), newest first. */
  history(securityId: string, key: PriceKey, request: PageRequest): Promise<HistoryPage<Price>>;
}

export interface FxRateFilter {
  baseCurrency?: string;
  quoteCurrency?: string;
  from?: string;
  to?: string;
}

/** FX rates by currency pair, date and source. */
export interface FxRateRepository {
  save(rates: readonly FxRate[]): Promise<WriteCounts>;
  /** The latest rate on or before `date` of each pair that has one (as known at `asAt`). */
  latest(pairs: readonly string[], date: string, asAt?: AsAt): Promise<FxTable>;
  /** By date, then pair, then source; a page number or a cursor. */
  list(filter: FxRateFilter, request: PageRequest, asAt?: AsAt): Promise<CursorPage<FxRate>>;
}

export interface SnapshotRef {
  portfolioId: string;
  date: string;
}

export interface StoredValuation {
  portfolioId: string;
  date: string;
  baseCurrency: string;
  /** The valued holdings' sum. */
  totalValue: number;
  /** Every holding has a market value (derived from the holdings for valuations stored before it was). */
  complete: boolean;
  /** Holdings without a market value. */
  unvaluedCount: number;
  holdings: Holding[];
  valuedAt: string;
  /**
   * Orders computations of the same portfolio and date: taken before the inputs are read, so a
   * computation that started later (and read newer inputs) has the greater version. Compared as strings.
   */
  version: string;
  /** The import whose data made this valuation due, recorded as its version's job (not stored with it). */
  jobId?: string | null;
}

/**
 * A portfolio-date whose valuation is out of date: its positions, a price or an FX rate it uses changed
 * (or, for a composite, a member's valuation did). One per portfolio-date, so repeated marks coalesce.
 */
export interface StaleMarker extends SnapshotRef {
  markedAt: string;
  /** The import that marked it last (data-quality exceptions the valuation opens name it), or null. */
  jobId: string | null;
  /**
   * Written by an import before its data (see StaleMarking), one per job: not valued while that import
   * still runs (its job is running on a live lease), since it marks the date ready once its data is stored.
   */
  writing: boolean;
  /** Changes on every re-mark: the marker is cleared only if it is still the version that was valued. */
  etag: string;
}

/** Position snapshots and the valuations made from them (the `positions` container, by portfolio). */
export interface PositionRepository {
  /**
   * Marks portfolio-dates stale, writing the markers whether or not they exist (a new etag, so a
   * valuation in progress does not clear them). Ready markers are one per portfolio-date; `writing`
   * markers one per portfolio-date and job (`jobId` required).
   */
  markStale(
    refs: readonly SnapshotRef[],
    mark: { markedAt: string; jobId: string | null; writing: boolean },
  ): Promise<void>;
  /** Removes the `writing` markers of one job for these portfolio-dates. */
  dropWriting(refs: readonly SnapshotRef[], jobId: string): Promise<void>;
  /** The portfolio-dates that one job's `writing` markers name (a file's calls leave theirs until its last). */
  writingRefs(jobId: string): Promise<SnapshotRef[]>;
  /** Removes each marker unless it was re-written since it was read (etag); true per marker removed. */
  clearStale(markers: readonly StaleMarker[]): Promise<boolean[]>;
  /** The oldest `limit` stale markers of a portfolio, by date. */
  staleMarkers(portfolioId: string, limit: number): Promise<StaleMarker[]>;
  /** Which of these portfolios have any stale marker. */
  stalePortfolios(portfolioIds: readonly string[]): Promise<Set<string>>;
  /** Up to `limit` portfolios with a marker written before `before` (ISO date-time). */
  portfoliosStaleSince(before: string, limit: number): Promise<string[]>;
  getSnapshots(refs: readonly SnapshotRef[]): Promise<Map<string, PositionSnapshot>>;
  saveSnapshots(snapshots: readonly PositionSnapshot[]): Promise<void>;
  /** Drops `replaced` from the snapshots a job wrote (its file's last call is stored); a snapshot rewritten since is left alone. */
  dropReplaced(jobId: string): Promise<void>;
  latestSnapshot(portfolioId: string, onOrBefore: string): Promise<PositionSnapshot | undefined>;
  /** Snapshots that hold one of the securities, dated within its reach (at least those; possibly more). */
  snapshotsHolding(reach: readonly PriceReach[]): Promise<SnapshotRef[]>;
  /** The dates of the snapshots of these portfolios on or after `from`. */
  snapshotDates(portfolioIds: readonly string[], from: string): Promise<string[]>;
  /** Snapshots on or after `from` with the currencies of their securities. */
  snapshotsFrom(from: string): Promise<(SnapshotRef & { currencies: string[] })[]>;
  /**
   * Stores the valuation unless one of a greater or equal version is already stored for its portfolio
   * and date (then nothing changes and the result is false): an older computation never replaces a newer.
   */
  saveValuation(valuation: StoredValuation): Promise<boolean>;
  /**
   * saveValuation for many at once (a few store calls in all): per valuation, when its version was
   * recorded, or undefined when it was not stored. A replaced valuation's holdings are kept: a read as
   * at an earlier instant shows the valuation that was current then.
   */
  saveValuations(valuations: readonly StoredValuation[]): Promise<(string | undefined)[]>;
  /** The valuation on `date` exactly, or the latest before it when `orEarlier` (as known at `asAt`). */
  valuation(portfolioId: string, date: string, orEarlier: boolean, asAt?: AsAt): Promise<StoredValuation | undefined>;
  /** The version of the valuation stored for each of these portfolio-dates that has one, keyed `portfolioId|date`. */
  valuationVersions(refs: readonly SnapshotRef[]): Promise<Map<string, string>>;
}

export interface TransactionFilter {
  portfolioId?: string;
  securityId?: string;
  from?: string;
  to?: string;
  type?: TransactionType;
  status?: TransactionStatus;
}

export interface TransactionRepository {
  getMany(refs: readonly { portfolioId: string; id: string }[]): Promise<Map<string, Transaction>>;
  /** When the stored version of a transaction handed out by getMany was recorded. */
  recordedAtOf(transaction: Transaction): string | undefined;
  /**
   * Writes each transaction if it is still as `previous` (as returned by getMany; undefined = must not
   * exist yet). Throws CONFLICT when another writer got there first; nothing is then half-checked.
   * Returns when each write's version was recorded.
   */
  save(writes: readonly { next: Transaction; previous: Transaction | undefined }[]): Promise<string[]>;
  /** One transaction by id, whatever its portfolio. */
  get(id: string, asAt?: AsAt): Promise<Transaction | undefined>;
  list(filter: TransactionFilter, request: PageRequest, asAt?: AsAt): Promise<CursorPage<Transaction>>;
  /** The versions of one transaction, newest first; undefined when it does not exist. */
  history(id: string, request: PageRequest): Promise<HistoryPage<Transaction> | undefined>;
}

/** Filters of the jobs list; each one given must match. */
export interface JobFilter {
  status?: Job["status"];
  dataType?: string;
  source?: Job["source"];
  feedId?: string;
}

export interface JobRepository {
  put(job: Job): Promise<void>;
  get(id: string): Promise<Job | undefined>;
  list(filter: JobFilter, request: PageRequest): Promise<CursorPage<Job>>;
  /** Up to `limit` running jobs whose lease ended before `now` (ISO date-time). */
  abandoned(now: string, limit: number): Promise<Job[]>;
  /**
   * Changes a job conditionally on the version `change` saw (re-reading and re-applying it on a
   * race); `change` returns undefined to leave the job as it is. Returns the stored result.
   */
  update(id: string, change: (current: Job) => Job | undefined): Promise<Job | undefined>;
}

export interface DataQualityExceptionFilter {
  type?: DataQualityException["type"];
  status?: DataQualityException["status"];
  severity?: DataQualityException["severity"];
}

/** An exception as stored, with what the service keeps beside the API's fields. */
export interface StoredException extends DataQualityException {
  /** `portfolioId|date`: the portfolio-date whose valuation found it (exceptions that follow their cause). */
  foundIn?: string;
  /** When it was last opened (created or reopened); names its `exception.created` event. */
  openedAt?: string;
  /** The event announcing its last change is still to be appended (set in the same write as the change). */
  unannounced?: "created" | "resolved";
  /** The stored version, for a write conditional on it. */
  etag?: string;
}

export interface DataQualityExceptionRepository {
  /** Creates each exception unless one with its id exists (in bulk): per exception, the new version's etag, or undefined where it existed. */
  createMany(exceptions: readonly StoredException[]): Promise<(string | undefined)[]>;
  /** The stored exceptions of these ids that exist, with their etags. */
  getMany(ids: readonly string[]): Promise<Map<string, StoredException>>;
  /**
   * Replaces each exception if it is still the version its `etag` names: per exception, the new
   * etag, or undefined where it changed meanwhile (or is gone).
   */
  replaceMany(exceptions: readonly StoredException[]): Promise<(string | undefined)[]>;
  /** The exceptions found in these portfolio-dates that are open, or whose last change is unannounced. */
  foundIn(refs: readonly SnapshotRef[]): Promise<StoredException[]>;
  get(id: string): Promise<DataQualityException | undefined>;
  list(filter: DataQualityExceptionFilter, request: PageRequest): Promise<CursorPage<DataQualityException>>;
}
