import type { Container } from "@azure/cosmos";
import { AppError } from "../../domain/errors";
import type { CursorPage, PageRequest } from "../../domain/page-request";
import type { Security } from "../../domain/security";
import { systemClock, type Clock } from "../../ports/clock";
import type {
  AsAt,
  HistoryPage,
  SecurityFilter,
  SecurityRepository,
  WriteCounts,
} from "../../ports/investment-repositories";
import { bulkDelete, bulkRead, bulkUpsert, refKey, sameContent } from "./bulk";
import { readDocument } from "./conditional-update";
import { stripSystem } from "./cosmos-errors";
import { equalityFilters, pagedQuery } from "./paged-query";
import { asAtPagedQuery } from "./versions/as-at-lists";
import { readAsAt, readManyAsAt, type AsAtSource } from "./versions/as-at-reads";
import { historyEntries } from "./versions/history";
import type { WithRecorded } from "./versions/recorded";
import { versionsBeside, type VersionedKind } from "./versions/version-docs";
import { writeVersioned, type Current, type VersionedTarget } from "./versions/versioned-writes";

interface SecurityDoc extends Security, WithRecorded {
  docType: "security";
  nameLower: string;
}

interface IsinDoc {
  id: string;
  docType: "isin";
  securityId: string;
}

const isinDocId = (isin: string): string => `isin|${isin}`;
const toSecurity = (doc: SecurityDoc): Security => {
  const { docType: _t, nameLower: _n, recorded: _r, ...security } = stripSystem(doc);
  const { _etag: _e, ...rest } = security as Security & { _etag?: string };
  return rest;
};
const isSecurity = (doc: object): boolean => (doc as { docType?: unknown }).docType === "security";

const securityKind: VersionedKind<SecurityDoc> = {
  kind: "security",
  partitionKeyOf: (doc) => doc.id,
  recordIdOf: (doc) => doc.id,
};

/**
 * Securities in the `securities` container (partition /id), with `isin|<ISIN>` lookup documents. Every
 * change records a version in `versions`.
 */
export class CosmosSecurityRepository implements SecurityRepository {
  private readonly target: VersionedTarget<SecurityDoc>;
  private readonly source: AsAtSource;
  /** The stored document (with its ETag) each security handed out by getMany was read from: a merge's conditional write. */
  private readonly readFrom = new WeakMap<Security, Current<SecurityDoc>>();

  constructor(
    private readonly container: Container,
    versions: Container = versionsBeside(container),
    clock: Clock = systemClock,
  ) {
    this.target = { container, versions, kind: securityKind, clock };
    this.source = { container, versions, kind: securityKind.kind };
  }

  async get(id: string, asAt?: AsAt): Promise<Security | undefined> {
    const doc =
      asAt === undefined
        ? await readDocument<SecurityDoc>(this.container, id, id, isSecurity)
        : await readAsAt(this.source, { id, partitionKey: id }, asAt, isSecurity);
    return doc === undefined ? undefined : toSecurity(doc as unknown as SecurityDoc);
  }

  async getMany(ids: readonly string[], asAt?: AsAt): Promise<Map<string, Security>> {
    const refs = [...new Set(ids)].map((id) => ({ id, partitionKey: id }));
    const docs =
      asAt === undefined
        ? await bulkRead<Current<SecurityDoc>>(this.container, refs, true)
        : await readManyAsAt(this.source, refs, asAt, isSecurity);
    const out = new Map<string, Security>();
    for (const doc of docs.values())
      if (isSecurity(doc)) {
        const security = toSecurity(doc as unknown as SecurityDoc);
        if (asAt === undefined) this.readFrom.set(security, doc as Current<SecurityDoc>);
        out.set(security.id, security);
      }
    return out;
  }

  async idsForIsins(isins: readonly string[]): Promise<Map<string, string>> {
    const unique = [...new Set(isins)];
    const docs = await bulkRead<IsinDoc>(
      this.container,
      unique.map((isin) => ({ id: isinDocId(isin), partitionKey: isinDocId(isin) })),
    );
    const out = new Map<string, string>();
    for (const doc of docs.values()) out.set(doc.id.slice("isin|".length), doc.securityId);
    return out;
  }

  async list(filter: SecurityFilter, request: PageRequest, asAt?: AsAt): Promise<CursorPage<Security>> {
    const { where, parameters } = equalityFilters({
      isin: filter.isin,
      ticker: filter.ticker,
      assetClass: filter.assetClass,
      currency: filter.currency,
    });
    if (filter.q !== undefined) {
      where.push("STARTSWITH(c.nameLower, @q)");
      parameters.push({ name: "@q", value: filter.q.toLowerCase() });
    }
    const query = { where: ["c.docType = 'security'", ...where], parameters, sortField: "id" };
    const result =
      asAt === undefined
        ? await pagedQuery<SecurityDoc>(this.container, query, request)
        : await asAtPagedQuery(this.source, query, request, asAt);
    return { ...result, items: result.items.map((doc) => toSecurity(doc as unknown as SecurityDoc)) };
  }

  async save(securities: readonly Security[], previous?: ReadonlyMap<string, Security>): Promise<WriteCounts> {
    const refs = securities.map((s) => ({ id: s.id, partitionKey: s.id }));
    // Merged into what getMany read: written only over that version (or, absent then, only if still absent).
    const existing =
      previous === undefined
        ? await bulkRead<Current<SecurityDoc>>(this.container, refs, true)
        : new Map(
            securities.flatMap((s, i) => {
              const before = previous.get(s.id);
              const doc = before === undefined ? undefined : this.readFrom.get(before);
              return doc === undefined ? [] : [[refKey(refs[i] ?? { id: "", partitionKey: "" }), doc] as const];
            }),
          );
    const docOf = (security: Security, before: SecurityDoc | undefined): SecurityDoc => ({
      ...security,
      createdAt: before?.createdAt ?? security.createdAt,
      docType: "security",
      nameLower: security.name.toLowerCase(),
    });
    const changes = (security: Security, before: SecurityDoc | undefined): boolean =>
      before === undefined || !sameContent(before, docOf(security, before));
    // The ISIN lookups first: a crash after them leaves a lookup naming the id the retry writes again.
    await bulkUpsert(
      this.container,
      securities.flatMap((s, i) =>
        s.isin !== null && changes(s, existing.get(refKey(refs[i] ?? { id: "", partitionKey: "" })))
          ? [{ id: isinDocId(s.isin), docType: "isin", securityId: s.id }]
          : [],
      ),
    );
    // The ISIN each written security had in the version it replaced.
    const replacedIsin = new Map<number, string | null>();
    const outcomes = await writeVersioned(
      this.target,
      refs,
      (before, i) => {
        const security = securities[i];
        if (security === undefined || !changes(security, before)) return undefined;
        replacedIsin.set(i, before?.isin ?? null);
        return docOf(security, before);
      },
      {
        known: (i) => existing.get(refKey(refs[i] ?? { id: "", partitionKey: "" })),
        retryRaces: previous === undefined,
      },
    );
    const raced = outcomes.findIndex((o) => o.outcome === "raced");
    if (raced >= 0)
      throw new AppError(
        "CONFLICT",
        `Security '${securities[raced]?.id ?? ""}' was changed by another import at the same time; retry this import`,
        { retryable: true },
      );
    const counts: WriteCounts = { created: 0, updated: 0, unchanged: 0 };
    const staleIsins: string[] = [];
    outcomes.forEach((o, i) => {
      if (o.outcome === "created") counts.created++;
      else if (o.outcome === "updated") counts.updated++;
      else counts.unchanged++;
      const before = replacedIsin.get(i);
      if (o.outcome === "updated" && before != null && before !== securities[i]?.isin) staleIsins.push(before);
    });
    await bulkDelete(
      this.container,
      staleIsins.map((isin) => ({ id: isinDocId(isin), partitionKey: isinDocId(isin) })),
    );
    return counts;
  }

  async history(id: string, request: PageRequest): Promise<HistoryPage<Security> | undefined> {
    const current = await readDocument<SecurityDoc>(this.container, id, id, isSecurity);
    if (current === undefined) return undefined;
    return historyEntries(
      this.source,
      [{ current: current as unknown as Record<string, unknown>, recordId: id, partitionKey: id }],
      request,
      (doc) => toSecurity(doc as unknown as SecurityDoc),
    );
  }
}
