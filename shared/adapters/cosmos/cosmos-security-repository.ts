import { BulkOperationType, type Container, type JSONObject, type OperationInput } from "@azure/cosmos";
import { AppError } from "../../domain/errors";
import type { CursorPage, PageRequest } from "../../domain/page-request";
import type { Security } from "../../domain/security";
import type { SecurityFilter, SecurityRepository, WriteCounts } from "../../ports/investment-repositories";
import { bulkDelete, bulkRead, bulkUpsert, bulkWithRetry, sameContent } from "./bulk";
import { isNotFound, stripSystem } from "./cosmos-errors";
import { equalityFilters, pagedQuery } from "./paged-query";

interface SecurityDoc extends Security {
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
  const { docType: _t, nameLower: _n, ...security } = stripSystem(doc);
  return security;
};

/** Securities in the `securities` container (partition /id), with `isin|<ISIN>` lookup documents. */
export class CosmosSecurityRepository implements SecurityRepository {
  /** The version each security handed out by getMany was read at (for a conditional write). */
  private readonly versions = new WeakMap<Security, string>();

  constructor(private readonly container: Container) {}

  async get(id: string): Promise<Security | undefined> {
    try {
      const { resource } = await this.container.item(id, id).read<SecurityDoc>();
      return resource?.docType === "security" ? toSecurity(resource) : undefined;
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  async getMany(ids: readonly string[]): Promise<Map<string, Security>> {
    const unique = [...new Set(ids)];
    const docs = await bulkRead<SecurityDoc & { _etag?: string }>(
      this.container,
      unique.map((id) => ({ id, partitionKey: id })),
      true,
    );
    const out = new Map<string, Security>();
    for (const doc of docs.values()) {
      if (doc.docType !== "security") continue;
      const security = toSecurity(doc);
      if (doc._etag !== undefined) this.versions.set(security, doc._etag);
      out.set(doc.id, security);
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

  async list(filter: SecurityFilter, request: PageRequest): Promise<CursorPage<Security>> {
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
    const result = await pagedQuery<SecurityDoc>(
      this.container,
      { where: ["c.docType = 'security'", ...where], parameters, sortField: "id" },
      request,
    );
    return { ...result, items: result.items.map(toSecurity) };
  }

  async save(securities: readonly Security[], previous?: ReadonlyMap<string, Security>): Promise<WriteCounts> {
    const existing =
      previous ??
      new Map(
        [
          ...(
            await bulkRead<SecurityDoc>(
              this.container,
              securities.map((s) => ({ id: s.id, partitionKey: s.id })),
            )
          ).values(),
        ].map((doc) => [doc.id, toSecurity(doc)]),
      );
    const counts: WriteCounts = { created: 0, updated: 0, unchanged: 0 };
    const writes: OperationInput[] = [];
    const lookups: JSONObject[] = [];
    const staleIsins: string[] = [];
    for (const security of securities) {
      const before = existing.get(security.id);
      const doc: SecurityDoc = {
        ...security,
        createdAt: before?.createdAt ?? security.createdAt,
        docType: "security",
        nameLower: security.name.toLowerCase(),
      };
      if (before === undefined) counts.created++;
      else if (sameContent(before, security)) {
        counts.unchanged++;
        continue;
      } else counts.updated++;
      if (before?.isin != null && before.isin !== security.isin) staleIsins.push(before.isin);
      const body = doc as unknown as JSONObject;
      const version = before === undefined ? undefined : this.versions.get(before);
      // Merged into what `previous` read: written only over that version (or, new, only if still absent).
      if (previous === undefined) writes.push({ operationType: BulkOperationType.Upsert, resourceBody: body });
      else if (before === undefined) writes.push({ operationType: BulkOperationType.Create, resourceBody: body });
      else
        writes.push({
          operationType: BulkOperationType.Replace,
          id: security.id,
          resourceBody: body,
          ifMatch: version ?? "",
        });
      if (security.isin !== null)
        lookups.push({ id: isinDocId(security.isin), docType: "isin", securityId: security.id });
    }
    const results = await bulkWithRetry(this.container, writes);
    const raced = results.findIndex((r) => r.statusCode === 409 || r.statusCode === 412);
    if (raced >= 0) {
      const id = (writes[raced] as { resourceBody?: { id?: string } } | undefined)?.resourceBody?.id ?? "";
      throw new AppError(
        "CONFLICT",
        `Security '${id}' was changed by another import at the same time; retry this import`,
        { retryable: true },
      );
    }
    const failed = results.find((r) => r.statusCode < 200 || r.statusCode > 299);
    if (failed !== undefined) throw new Error(`security write failed with ${failed.statusCode}`);
    await bulkUpsert(this.container, lookups);
    await bulkDelete(
      this.container,
      staleIsins.map((isin) => ({ id: isinDocId(isin), partitionKey: isinDocId(isin) })),
    );
    return counts;
  }
}
