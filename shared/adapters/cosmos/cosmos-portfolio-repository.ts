import { BulkOperationType, type Container } from "@azure/cosmos";
import { AppError } from "../../domain/errors";
import type { CursorPage, PageRequest } from "../../domain/page-request";
import type { Portfolio } from "../../domain/portfolio";
import type { PortfolioFilter, PortfolioRepository, RecordedValuation } from "../../ports/portfolio-repository";
import { bulkRead, bulkWithRetry } from "./bulk";
import { equalityFilters, pagedQuery } from "./paged-query";
import { readDocument, updateDocument, updateDocuments, type Versioned } from "./conditional-update";
import { isConflict, isPreconditionFailed, stripSystem } from "./cosmos-errors";

interface PortfolioDoc extends Portfolio {
  docType: "portfolio";
  /** The version of the valuation totalValue comes from (internal; see recordValuation). */
  valuationVersion?: string;
  /** Set while stale markers wait for valuation (see markValuationPending); shown as valuationStatus. */
  valuationPending?: boolean;
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

const toPortfolio = (doc: PortfolioDoc): Portfolio => {
  const {
    docType: _docType,
    valuationVersion: _version,
    valuationPending,
    valuationStatus: _status,
    ...rest
  } = stripSystem(doc);
  return {
    ...rest,
    // Portfolios stored before completeness was recorded show null until their next valuation.
    valuationComplete: rest.valuationComplete ?? null,
    unvaluedCount: rest.unvaluedCount ?? null,
    valuationStatus: valuationPending === true ? "pending" : "current",
  };
};

/** The stored form of a portfolio: its valuationStatus is derived from the flag, never stored. */
const stored = ({ valuationStatus: _status, ...portfolio }: Portfolio): Omit<Portfolio, "valuationStatus"> => portfolio;

/** Portfolios in the `portfolios` container (partition /id), with code reservations beside them. */
export class CosmosPortfolioRepository implements PortfolioRepository {
  constructor(private readonly container: Container) {}

  async get(id: string): Promise<Portfolio | undefined> {
    const doc = await this.read(id);
    return doc === undefined ? undefined : toPortfolio(doc);
  }

  async create(portfolio: Portfolio): Promise<void> {
    await this.reserveCode(portfolio.code, portfolio.id);
    const doc: PortfolioDoc = { ...stored(portfolio), docType: "portfolio" };
    await this.container.items.create(doc);
  }

  async update(id: string, change: (current: Portfolio) => Portfolio): Promise<Portfolio | undefined> {
    const result = await updateDocument<PortfolioDoc>(
      this.container,
      { id, partitionKey: id, what: `Portfolio '${id}'` },
      () => this.read(id),
      (doc) => ({
        ...stored(change(toPortfolio(doc))),
        docType: "portfolio",
        // The valuation version and pending flag are bookkeeping of valuation; an edit keeps them.
        ...(doc.valuationVersion !== undefined ? { valuationVersion: doc.valuationVersion } : {}),
        ...(doc.valuationPending !== undefined ? { valuationPending: doc.valuationPending } : {}),
      }),
    );
    return result === undefined ? undefined : toPortfolio(result);
  }

  async recordValuation(id: string, valuation: RecordedValuation): Promise<boolean> {
    const [recorded] = await this.recordValuations([{ id, ...valuation }]);
    return recorded ?? false;
  }

  async recordValuations(valuations: readonly (RecordedValuation & { id: string })[]): Promise<boolean[]> {
    const recorded = new Array<boolean>(valuations.length).fill(false);
    // Of several valuations of one portfolio only the newest can show: the others would be replaced by it.
    const newest = new Map<string, number>();
    valuations.forEach((v, i) => {
      const best = valuations[newest.get(v.id) ?? -1];
      if (best === undefined || v.date > best.date || (v.date === best.date && v.version > best.version))
        newest.set(v.id, i);
    });
    await updateDocuments<PortfolioDoc>(
      this.container,
      [...newest.keys()].map((id) => ({ id, partitionKey: id })),
      (doc) => doc.docType === "portfolio",
      (docs) =>
        Promise.resolve(
          docs.map((doc) => {
            const index = newest.get(doc.id) ?? -1;
            const valuation = valuations[index];
            recorded[index] = false;
            if (valuation === undefined || !isNewer(doc, valuation.date, valuation.version)) return undefined;
            recorded[index] = true;
            const { _etag: _e, ...rest } = doc;
            return {
              ...rest,
              totalValue: valuation.totalValue,
              latestValuationDate: valuation.date,
              valuationComplete: valuation.complete,
              unvaluedCount: valuation.unvaluedCount,
              updatedAt: valuation.valuedAt,
              valuationVersion: valuation.version,
            };
          }),
        ),
      `portfolios ${[...newest.keys()].slice(0, 3).join(", ")}`,
    );
    return recorded;
  }

  async markValuationPending(ids: readonly string[]): Promise<void> {
    const docs = await bulkRead<PortfolioDoc>(
      this.container,
      [...new Set(ids)].map((id) => ({ id, partitionKey: id })),
      true,
    );
    // Written even where the flag is already set: the new version makes a consumer that read the
    // portfolio before this (and may have looked for markers before ours) fail its conditional clear.
    const toMark = [...docs.values()].filter((doc) => doc.docType === "portfolio");
    // One conditional replace each, in bulk; a portfolio changed meanwhile is marked by a read-modify-write.
    const results = await bulkWithRetry(
      this.container,
      toMark.map(({ _etag, ...doc }) => ({
        operationType: BulkOperationType.Replace,
        id: doc.id,
        partitionKey: doc.id,
        resourceBody: { ...doc, valuationPending: true },
        ifMatch: _etag ?? "",
      })),
    );
    const raced = toMark.filter((_, i) => results[i]?.statusCode === 412);
    const failed = results.find(
      (r) => r.statusCode !== 412 && r.statusCode !== 404 && (r.statusCode < 200 || r.statusCode > 299),
    );
    if (failed !== undefined) throw new Error(`marking portfolios pending failed with ${failed.statusCode}`);
    // Written even where the flag is already set (a new version), as above.
    await updateDocuments<PortfolioDoc>(
      this.container,
      raced.map((doc) => ({ id: doc.id, partitionKey: doc.id })),
      (doc) => doc.docType === "portfolio",
      (docs) => Promise.resolve(docs.map(({ _etag: _e, ...doc }) => ({ ...doc, valuationPending: true }))),
      `portfolios ${raced
        .slice(0, 3)
        .map((doc) => doc.id)
        .join(", ")}`,
    );
  }

  async clearValuationPending(
    ids: readonly string[],
    stillStale: (ids: readonly string[]) => Promise<ReadonlySet<string>>,
  ): Promise<void> {
    await updateDocuments<PortfolioDoc>(
      this.container,
      [...new Set(ids)].map((id) => ({ id, partitionKey: id })),
      (doc) => doc.docType === "portfolio",
      // Asked after the portfolios were read: a marker written after this answer comes with a new flag
      // write (markValuationPending), which makes the conditional clear fail and read again.
      async (docs) => {
        const stale = docs.length === 0 ? new Set<string>() : await stillStale(docs.map((doc) => doc.id));
        return docs.map((doc) => {
          const pending = stale.has(doc.id);
          if ((doc.valuationPending === true) === pending) return undefined;
          const { _etag: _e, ...rest } = doc;
          return { ...rest, valuationPending: pending };
        });
      },
      `portfolios ${ids.slice(0, 3).join(", ")}`,
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

  async list(filter: PortfolioFilter, request: PageRequest): Promise<CursorPage<Portfolio>> {
    const { where, parameters } = equalityFilters({
      status: filter.status,
      clientId: filter.clientId,
      baseCurrency: filter.currency,
    });
    const result = await pagedQuery<PortfolioDoc>(
      this.container,
      { where: ["c.docType = 'portfolio'", ...where], parameters, sortField: "code" },
      request,
    );
    return { ...result, items: result.items.map(toPortfolio) };
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
    return resources.map(toPortfolio);
  }

  private async read(id: string): Promise<Versioned<PortfolioDoc> | undefined> {
    if (id.startsWith("code|")) return undefined;
    return readDocument<PortfolioDoc>(this.container, id, id, (doc) => doc.docType === "portfolio");
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
