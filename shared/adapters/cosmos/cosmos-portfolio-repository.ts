import type { Container } from "@azure/cosmos";
import { AppError } from "../../domain/errors";
import type { CursorPage, PageRequest } from "../../domain/page-request";
import type { Portfolio } from "../../domain/portfolio";
import { systemClock, type Clock } from "../../ports/clock";
import type { AsAt, HistoryPage } from "../../ports/investment-repositories";
import type { PortfolioFilter, PortfolioRepository, RecordedValuation } from "../../ports/portfolio-repository";
import { currentWriteContext } from "../../observability/write-context";
import { bulkRead, sameContent } from "./bulk";
import { equalityFilters, pagedQuery } from "./paged-query";
import { readDocument, type Versioned } from "./conditional-update";
import { isConflict, isPreconditionFailed, stripSystem } from "./cosmos-errors";
import { asAtPagedQuery } from "./versions/as-at-lists";
import { readAsAt, type AsAtSource } from "./versions/as-at-reads";
import { historyEntries } from "./versions/history";
import { nextRecorded, recordedOf, type WithRecorded } from "./versions/recorded";
import { versionsBeside, type VersionedKind } from "./versions/version-docs";
import { inPlace, writeVersioned, type VersionedTarget } from "./versions/versioned-writes";

interface PortfolioDoc extends Portfolio, WithRecorded {
  docType: "portfolio";
  /** The version of the valuation totalValue comes from (internal; see recordValuation). */
  valuationVersion?: string;
  /** Set while stale markers wait for valuation (see markValuationPending); shown as valuationStatus. */
  valuationPending?: boolean;
  /**
   * When the flag was set (absent on flags set before this was recorded): setting it records no version,
   * so a read as at an earlier instant of the same version shows the portfolio current, as it was then.
   */
  pendingSince?: string;
  _etag?: string;
}

/** Whether a valuation (date, version) is newer than what the portfolio shows. */
const isNewer = (doc: PortfolioDoc, date: string, version: string): boolean =>
  doc.latestValuationDate === null ||
  date > doc.latestValuationDate ||
  (date === doc.latestValuationDate && version > (doc.valuationVersion ?? ""));

/** Reserves a portfolio code; the code is unique across partitions, so it gets a document of its own. */
interface CodeDoc {
  id: string;
  docType: "portfolio-code";
  portfolioId: string;
  _etag?: string;
}

const codeDocId = (code: string): string => `code|${code.toUpperCase()}`;

/** The portfolio a stored document shows; `at`: the instant it is read as at (default: now). */
const toPortfolio = (doc: PortfolioDoc, at?: string): Portfolio => {
  const {
    docType: _docType,
    valuationVersion: _version,
    valuationPending,
    pendingSince,
    valuationStatus: _status,
    recorded: _recorded,
    _etag: _e,
    ...rest
  } = stripSystem(doc);
  return {
    ...rest,
    // Portfolios stored before completeness was recorded show null until their next valuation.
    valuationComplete: rest.valuationComplete ?? null,
    unvaluedCount: rest.unvaluedCount ?? null,
    valuationStatus:
      valuationPending === true && (at === undefined || pendingSince === undefined || pendingSince <= at)
        ? "pending"
        : "current",
  };
};

/** The stored form of a portfolio: its valuationStatus is derived from the flag, never stored. */
const stored = ({ valuationStatus: _status, ...portfolio }: Portfolio): Omit<Portfolio, "valuationStatus"> => portfolio;

const portfolioKind: VersionedKind<PortfolioDoc> = {
  kind: "portfolio",
  partitionKeyOf: (doc) => doc.id,
  recordIdOf: (doc) => doc.id,
};

const isPortfolio = (doc: object): boolean => (doc as { docType?: unknown }).docType === "portfolio";

/**
 * Portfolios in the `portfolios` container (partition /id), with code reservations beside them. Every
 * change (an edit, a valuation's total, the pending flag cleared) records a version in `versions`; the
 * pending flag is set in place, with the instant it was set (see markValuationPending).
 */
export class CosmosPortfolioRepository implements PortfolioRepository {
  private readonly target: VersionedTarget<PortfolioDoc>;
  private readonly source: AsAtSource;

  constructor(
    private readonly container: Container,
    versions: Container = versionsBeside(container),
    clock: Clock = systemClock,
  ) {
    this.target = { container, versions, kind: portfolioKind, clock };
    this.source = { container, versions, kind: portfolioKind.kind };
  }

  async get(id: string, asAt?: AsAt): Promise<Portfolio | undefined> {
    if (id.startsWith("code|")) return undefined;
    if (asAt !== undefined) {
      const doc = await readAsAt(this.source, { id, partitionKey: id }, asAt, isPortfolio);
      return doc === undefined ? undefined : toPortfolio(doc as unknown as PortfolioDoc, asAt);
    }
    const doc = await this.read(id);
    return doc === undefined ? undefined : toPortfolio(doc);
  }

  async create(portfolio: Portfolio): Promise<void> {
    await this.reserveCode(portfolio.code, portfolio.id);
    const recorded = nextRecorded(undefined, currentWriteContext(), this.target.clock.now().getTime());
    const doc: PortfolioDoc = { ...stored(portfolio), docType: "portfolio", recorded };
    await this.container.items.create(doc);
  }

  async update(id: string, change: (current: Portfolio) => Portfolio): Promise<Portfolio | undefined> {
    if (id.startsWith("code|")) return undefined;
    const [result] = await writeVersioned(this.target, [{ id, partitionKey: id }], (doc) => {
      if (doc === undefined || !isPortfolio(doc)) return undefined;
      const next: PortfolioDoc = {
        ...stored(change(toPortfolio(doc))),
        docType: "portfolio",
        // The valuation version and pending flag are bookkeeping of valuation; an edit keeps them.
        ...(doc.valuationVersion !== undefined ? { valuationVersion: doc.valuationVersion } : {}),
        ...(doc.valuationPending !== undefined ? { valuationPending: doc.valuationPending } : {}),
        ...(doc.pendingSince !== undefined ? { pendingSince: doc.pendingSince } : {}),
      };
      // An edit that changes nothing records nothing (and leaves updatedAt as it was).
      return sameContent(doc, next) ? undefined : next;
    });
    return result?.stored === undefined ? undefined : toPortfolio(result.stored);
  }

  async recordValuation(id: string, valuation: RecordedValuation): Promise<boolean> {
    const [recorded] = await this.recordValuations([{ id, ...valuation }]);
    return recorded !== undefined;
  }

  async recordValuations(
    valuations: readonly (RecordedValuation & { id: string; jobId?: string | null })[],
  ): Promise<(string | undefined)[]> {
    const recorded = new Array<string | undefined>(valuations.length).fill(undefined);
    // Of several valuations of one portfolio only the newest can show: the others would be replaced by it.
    const newest = new Map<string, number>();
    valuations.forEach((v, i) => {
      const best = valuations[newest.get(v.id) ?? -1];
      if (best === undefined || v.date > best.date || (v.date === best.date && v.version > best.version))
        newest.set(v.id, i);
    });
    const ids = [...newest.keys()];
    const valuationOf = (i: number) => valuations[newest.get(ids[i] ?? "") ?? -1];
    const outcomes = await writeVersioned(
      this.target,
      ids.map((id) => ({ id, partitionKey: id })),
      (doc, i) => {
        const valuation = valuationOf(i);
        if (doc === undefined || !isPortfolio(doc) || valuation === undefined) return undefined;
        if (!isNewer(doc, valuation.date, valuation.version)) return undefined;
        return {
          ...doc,
          totalValue: valuation.totalValue,
          latestValuationDate: valuation.date,
          valuationComplete: valuation.complete,
          unvaluedCount: valuation.unvaluedCount,
          updatedAt: valuation.valuedAt,
          valuationVersion: valuation.version,
        };
      },
      { contextOf: (i) => ({ jobId: valuationOf(i)?.jobId ?? null }) },
    );
    outcomes.forEach((o, i) => {
      const index = newest.get(ids[i] ?? "");
      if (index !== undefined && o.outcome === "updated") recorded[index] = o.recordedAt;
    });
    return recorded;
  }

  /** `markersWritten`: the portfolios are read while the markers are written; the flags are written after. */
  async markValuationPending(ids: readonly string[], markersWritten?: Promise<void>): Promise<void> {
    const unique = [...new Set(ids)];
    const since = this.target.clock.now().toISOString();
    // Awaited only after the read: a failure before then is handled here, and thrown by that await.
    markersWritten?.catch(() => undefined);
    // Written even where the flag is already set (a new ETag): a consumer that read the portfolio before
    // this (and may have looked for markers before ours) then fails its conditional clear. Setting it
    // records no version (an import can flag thousands of portfolios, and it answers only once they are
    // flagged): the flag says since when, so a read as at an earlier instant still shows the portfolio
    // current. Clearing it does record one (the version the flag belonged to ends there).
    await writeVersioned(
      this.target,
      unique.map((id) => ({ id, partitionKey: id })),
      (doc) => {
        if (doc === undefined || !isPortfolio(doc)) return undefined;
        return inPlace(doc.valuationPending === true ? doc : { ...doc, valuationPending: true, pendingSince: since });
      },
      markersWritten === undefined ? {} : { beforeChange: () => markersWritten },
    );
  }

  async clearValuationPending(
    ids: readonly string[],
    stillStale: (ids: readonly string[]) => Promise<ReadonlySet<string>>,
  ): Promise<void> {
    let stale: ReadonlySet<string> = new Set();
    await writeVersioned(
      this.target,
      [...new Set(ids)].map((id) => ({ id, partitionKey: id })),
      (doc) => {
        if (doc === undefined || !isPortfolio(doc)) return undefined;
        const pending = stale.has(doc.id);
        // A version of its own: a flag set since that version began is part of it from the start.
        const { pendingSince: _since, ...rest } = doc;
        return (doc.valuationPending === true) === pending ? undefined : { ...rest, valuationPending: pending };
      },
      {
        // Asked after the portfolios were read: a marker written after this answer comes with a new flag
        // write (markValuationPending), which makes the conditional clear fail and read again.
        beforeChange: async (docs) => {
          const found = docs.flatMap((doc) => (doc !== undefined && isPortfolio(doc) ? [doc.id] : []));
          stale = found.length === 0 ? new Set<string>() : await stillStale(found);
        },
      },
    );
  }

  async pendingValuations(limit: number): Promise<string[]> {
    const { resources } = await this.container.items
      .query<string>({
        query: "SELECT TOP @n VALUE c.id FROM c WHERE c.docType = 'portfolio' AND c.valuationPending = true",
        parameters: [{ name: "@n", value: limit }],
      })
      .fetchAll();
    return resources;
  }

  async list(filter: PortfolioFilter, request: PageRequest, asAt?: AsAt): Promise<CursorPage<Portfolio>> {
    const { where, parameters } = equalityFilters({
      status: filter.status,
      clientId: filter.clientId,
      baseCurrency: filter.currency,
    });
    const query = { where: ["c.docType = 'portfolio'", ...where], parameters, sortField: "code" };
    const result =
      asAt === undefined
        ? await pagedQuery<PortfolioDoc>(this.container, query, request)
        : await asAtPagedQuery(this.source, query, request, asAt);
    return { ...result, items: result.items.map((doc) => toPortfolio(doc as unknown as PortfolioDoc, asAt)) };
  }

  async history(id: string, request: PageRequest): Promise<HistoryPage<Portfolio> | undefined> {
    const current = await this.read(id);
    if (current === undefined) return undefined;
    return historyEntries(
      this.source,
      [{ current: current as unknown as Record<string, unknown>, recordId: id, partitionKey: id }],
      request,
      // As the single read showed it right after that version (before any later pending flag).
      (doc) => toPortfolio(doc as unknown as PortfolioDoc, recordedOf(doc).at),
    );
  }

  async getMany(ids: readonly string[]): Promise<Map<string, Portfolio>> {
    const unique = [...new Set(ids)].filter((id) => !id.startsWith("code|"));
    const docs = await bulkRead<PortfolioDoc>(
      this.container,
      unique.map((id) => ({ id, partitionKey: id })),
    );
    const out = new Map<string, Portfolio>();
    for (const doc of docs.values()) if (doc.docType === "portfolio") out.set(doc.id, toPortfolio(doc));
    return out;
  }

  async idsForCodes(codes: readonly string[]): Promise<Map<string, string>> {
    const unique = [...new Set(codes.map((c) => c.toUpperCase()))];
    const docs = await bulkRead<CodeDoc>(
      this.container,
      unique.map((code) => ({ id: codeDocId(code), partitionKey: codeDocId(code) })),
    );
    const reserved = new Map<string, string>();
    for (const doc of docs.values()) reserved.set(doc.id.slice("code|".length), doc.portfolioId);
    // A reservation whose portfolio was never written (a crashed create) names no portfolio.
    const existing = await this.getMany([...reserved.values()]);
    return new Map([...reserved].filter(([, id]) => existing.has(id)));
  }

  async compositesContaining(memberIds: readonly string[]): Promise<Portfolio[]> {
    const { resources } = await this.container.items
      .query<PortfolioDoc>({
        query:
          "SELECT * FROM c WHERE c.docType = 'portfolio' AND c.type = 'composite' AND EXISTS(SELECT VALUE m FROM m IN c.memberIds WHERE ARRAY_CONTAINS(@ids, m))",
        parameters: [{ name: "@ids", value: [...new Set(memberIds)] }],
      })
      .fetchAll();
    return resources.map((doc) => toPortfolio(doc));
  }

  private async read(id: string): Promise<Versioned<PortfolioDoc> | undefined> {
    if (id.startsWith("code|")) return undefined;
    return readDocument<PortfolioDoc>(this.container, id, id, isPortfolio);
  }

  /**
   * Claims the code for `portfolioId`. A reservation left by a create that crashed before writing its
   * portfolio is taken over, so a retried create is not blocked forever.
   */
  private async reserveCode(code: string, portfolioId: string): Promise<void> {
    const id = codeDocId(code);
    const reservation: CodeDoc = { id, docType: "portfolio-code", portfolioId };
    try {
      await this.container.items.create(reservation);
      return;
    } catch (error) {
      if (!isConflict(error)) throw error;
    }
    const { resource: existing } = await this.container.item(id, id).read<CodeDoc>();
    if (existing === undefined || (await this.read(existing.portfolioId)) !== undefined) {
      throw new AppError("CONFLICT", `A portfolio with code '${code}' already exists`);
    }
    try {
      await this.container
        .item(id, id)
        .replace(reservation, { accessCondition: { type: "IfMatch", condition: existing._etag ?? "" } });
    } catch (error) {
      if (isPreconditionFailed(error)) throw new AppError("CONFLICT", `A portfolio with code '${code}' already exists`);
      throw error;
    }
  }
}
