import type { Container, JSONObject } from "@azure/cosmos";
import type { CursorPage, PageRequest } from "../../domain/page-request";
import type { Security } from "../../domain/security";
import type { SecurityFilter, SecurityRepository, WriteCounts } from "../../ports/investment-repositories";
import { bulkDelete, bulkRead, bulkUpsert, refKey, sameContent } from "./bulk";
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
    const docs = await bulkRead<SecurityDoc>(
      this.container,
      unique.map((id) => ({ id, partitionKey: id })),
    );
    const out = new Map<string, Security>();
    for (const doc of docs.values()) if (doc.docType === "security") out.set(doc.id, toSecurity(doc));
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

  async save(securities: readonly Security[]): Promise<WriteCounts> {
    const existing = await bulkRead<SecurityDoc>(
      this.container,
      securities.map((s) => ({ id: s.id, partitionKey: s.id })),
    );
    const counts: WriteCounts = { created: 0, updated: 0, unchanged: 0 };
    const writes: JSONObject[] = [];
    const staleIsins: string[] = [];
    for (const security of securities) {
      const before = existing.get(refKey({ id: security.id, partitionKey: security.id }));
      const doc: SecurityDoc = {
        ...security,
        createdAt: before?.createdAt ?? security.createdAt,
        docType: "security",
        nameLower: security.name.toLowerCase(),
      };
      if (before === undefined) counts.created++;
      else if (sameContent(before, doc)) {
        counts.unchanged++;
        continue;
      } else counts.updated++;
      if (before?.isin != null && before.isin !== security.isin) staleIsins.push(before.isin);
      writes.push(doc as unknown as JSONObject);
      if (security.isin !== null)
        writes.push({ id: isinDocId(security.isin), docType: "isin", securityId: security.id });
    }
    await bulkUpsert(this.container, writes);
    await bulkDelete(
      this.container,
      staleIsins.map((isin) => ({ id: isinDocId(isin), partitionKey: isinDocId(isin) })),
    );
    return counts;
  }
}
