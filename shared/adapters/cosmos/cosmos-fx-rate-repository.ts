import type { Container, SqlParameter } from "@azure/cosmos";
import { mapConcurrent } from "../../domain/concurrency";
import { fxRateId, type FxRate } from "../../domain/fx-rate";
import type { CursorPage, PageRequest } from "../../domain/page-request";
import type { FxPoint, FxTable } from "../../domain/valuation";
import { systemClock, type Clock } from "../../ports/clock";
import type { AsAt, FxRateFilter, FxRateRepository, WriteCounts } from "../../ports/investment-repositories";
import { sameContent } from "./bulk";
import { stripSystem } from "./cosmos-errors";
import { pagedQuery, type PagedQuery } from "./paged-query";
import { asAtFirst, asAtPagedQuery } from "./versions/as-at-lists";
import { type AsAtSource } from "./versions/as-at-reads";
import type { WithRecorded } from "./versions/recorded";
import { versionsBeside, type VersionedKind } from "./versions/version-docs";
import { writeVersioned, type VersionedTarget } from "./versions/versioned-writes";

interface FxDoc extends FxRate, WithRecorded {
  id: string;
  docType: "fx";
  /** `date|pair|source`: one field that orders the list (by date, then pair, then source) uniquely. */
  sortKey: string;
}

const fxKind: VersionedKind<FxDoc> = {
  kind: "fx",
  partitionKeyOf: (doc) => doc.pair,
  recordIdOf: (doc) => doc.id,
};

const toFxRate = (doc: FxDoc): FxRate => {
  const { id: _i, docType: _d, sortKey: _s, recorded: _r, ...rate } = stripSystem(doc);
  const { _etag: _e, ...rest } = rate as FxRate & { _etag?: string };
  return rest;
};

/** FX rates in the `fxRates` container (partition /pair, id `date|source`); a corrected rate records a version in `versions`. */
export class CosmosFxRateRepository implements FxRateRepository {
  private readonly target: VersionedTarget<FxDoc>;
  private readonly source: AsAtSource;

  constructor(
    private readonly container: Container,
    versions: Container = versionsBeside(container),
    clock: Clock = systemClock,
  ) {
    this.target = { container, versions, kind: fxKind, clock };
    this.source = { container, versions, kind: fxKind.kind };
  }

  async save(rates: readonly FxRate[]): Promise<WriteCounts> {
    const docs: FxDoc[] = rates.map((rate) => ({
      ...rate,
      id: fxRateId(rate),
      docType: "fx",
      sortKey: `${rate.date}|${rate.pair}|${rate.source}`,
    }));
    const outcomes = await writeVersioned(
      this.target,
      docs.map((doc) => ({ id: doc.id, partitionKey: doc.pair })),
      (before, i) => {
        const doc = docs[i];
        return doc === undefined || (before !== undefined && sameContent(before, doc)) ? undefined : doc;
      },
      { createFirst: true },
    );
    const counts: WriteCounts = { created: 0, updated: 0, unchanged: 0 };
    for (const o of outcomes) {
      if (o.outcome === "created") counts.created++;
      else if (o.outcome === "updated") counts.updated++;
      else counts.unchanged++;
    }
    return counts;
  }

  async latest(pairs: readonly string[], date: string, asAt?: AsAt): Promise<FxTable> {
    const table = new Map<string, FxPoint[]>();
    await mapConcurrent([...new Set(pairs)], 16, async (pair) => {
      // Several sources may quote the same date: the one whose name sorts last wins, deterministically.
      const query: PagedQuery = {
        where: ["c.pair = @pair", "c.docType = 'fx'", "c.date <= @date"],
        parameters: [
          { name: "@pair", value: pair },
          { name: "@date", value: date },
        ],
        sortField: "id",
        descending: true,
        partitionKey: pair,
      };
      const top =
        asAt === undefined
          ? await this.newest(query)
          : ((await asAtFirst(this.source, query, 1, asAt))[0] as FxDoc | undefined);
      if (top !== undefined) table.set(pair, [{ date: top.date, rate: top.rate }]);
    });
    return table;
  }

  async list(filter: FxRateFilter, request: PageRequest, asAt?: AsAt): Promise<CursorPage<FxRate>> {
    const where = ["c.docType = 'fx'"];
    const parameters: SqlParameter[] = [];
    const add = (condition: string, name: string, value: string | undefined): void => {
      if (value === undefined) return;
      where.push(condition);
      parameters.push({ name, value });
    };
    add("c.baseCurrency = @base", "@base", filter.baseCurrency);
    add("c.quoteCurrency = @quote", "@quote", filter.quoteCurrency);
    add("c.date >= @from", "@from", filter.from);
    add("c.date <= @to", "@to", filter.to);
    const pair =
      filter.baseCurrency !== undefined && filter.quoteCurrency !== undefined
        ? `${filter.baseCurrency}${filter.quoteCurrency}`
        : undefined;
    const query: PagedQuery = {
      where,
      parameters,
      sortField: "sortKey",
      ...(pair !== undefined ? { partitionKey: pair } : {}),
    };
    const page =
      asAt === undefined
        ? await pagedQuery<FxDoc>(this.container, query, request)
        : await asAtPagedQuery(this.source, query, request, asAt);
    return { ...page, items: page.items.map((doc) => toFxRate(doc as unknown as FxDoc)) };
  }

  private async newest(query: PagedQuery): Promise<FxDoc | undefined> {
    const { resources } = await this.container.items
      .query<FxDoc>(
        {
          query: `SELECT TOP 1 * FROM c WHERE ${query.where.join(" AND ")} ORDER BY c.id DESC`,
          parameters: query.parameters,
        },
        { partitionKey: query.partitionKey ?? "" },
      )
      .fetchAll();
    return resources[0];
  }
}
