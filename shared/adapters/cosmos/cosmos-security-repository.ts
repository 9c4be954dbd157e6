import type { Container, JSONObject, SqlParameter } from "@azure/cosmos";
import type { Page } from "../../domain/pagination";
import type { Security } from "../../domain/security";
import type { SecurityFilter, SecurityRepository, WriteCounts } from "../../ports/investment-repositories";
import { bulkDelete, bulkRead, bulkUpsert, refKey, sameContent } from "./bulk";
import { isNotFound, stripSystem } from "./cosmos-errors";

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
    const docs = await bulkRead<SecurityDoc>(this.container, unique.map((id) => ({ id, partitionKey: id })));
    const out = new Map<string, Security>();
    for (const doc of docs.values()) if (doc.docType === "security") out.set(doc.id, toSecurity(doc));
    return out;
  }

  async idsForIsins(isins: readonly string[]): Promise<Map<string, string>> {
    const unique = [...new Set(isins)];
    const docs = await bulkRead<IsinDoc>(this.container, unique.map((isin) => ({ id: isinDocId(isin), partitionKey: isinDocId(isin) })));
    const out = new Map<string, string>();
    for (const doc of docs.values()) out.set(doc.id.slice("isin|".length), doc.securityId);
    return out;
  }

  async list(filter: SecurityFilter, page: number, pageSize: number): Promise<Page<Security>> {
    const where = ["c.docType = 'security'"];
    const parameters: SqlParameter[] = [];
    const add = (field: string, name: string, value: string | undefined): void => {
      if (value === undefined) return;
      where.push(`c.${field} = @${name}`);
      parameters.push({ name: `@${name}`, value });
    };
    add("isin", "isin", filter.isin);
    add("ticker", "ticker", filter.ticker);
    add("assetClass", "assetClass", filter.assetClass);
    add("currency", "currency", filter.currency);
    if (filter.q !== undefined) {
      where.push("STARTSWITH(c.nameLower, @q)");
      parameters.push({ name: "@q", value: filter.q.toLowerCase() });
    }
    const condition = where.join(" AND ");
    const { resources: counts } = await this.container.items.query<number>({ query: `SELECT VALUE COUNT(1) FROM c WHERE ${condition}`, parameters }).fetchAll();
    const totalItems = counts[0] ?? 0;
    const skip = (page - 1) * pageSize;
    if (skip >= totalItems) return { items: [], totalItems };
    const { resources } = await this.container.items
      .query<SecurityDoc>({ query: `SELECT TOP @top * FROM c WHERE ${condition} ORDER BY c.id`, parameters: [...parameters, { name: "@top", value: skip + pageSize }] })
      .fetchAll();
    return { items: resources.slice(skip).map((d) => toSecurity(d)), totalItems };
  }

  async save(securities: readonly Security[]): Promise<WriteCounts> {
    const existing = await bulkRead<SecurityDoc>(this.container, securities.map((s) => ({ id: s.id, partitionKey: s.id })));
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
      if (security.isin !== null) writes.push({ id: isinDocId(security.isin), docType: "isin", securityId: security.id });
    }
    await bulkUpsert(this.container, writes);
    await bulkDelete(this.container, staleIsins.map((isin) => ({ id: isinDocId(isin), partitionKey: isinDocId(isin) })));
    return counts;
  }
}
