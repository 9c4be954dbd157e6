import type { Container, SqlParameter } from "@azure/cosmos";
import type { CursorPage, PageRequest } from "../../../domain/page-request";
import type { AuditEntry, AuditFilter } from "../../../domain/settings-audit";
import type { SettingsAuditLog } from "../../../ports/settings-audit-log";
import { pagedQuery } from "../paged-query";
import type { AuditDoc, PendingAuditWriter } from "./pending-audit";

/**
 * The `audit` container (partition /resourceKey = `<type>|<id>`): an item's own entries are one
 * partition's read; the whole trail, or a filter by actor or time, reads across partitions (a
 * deployment's settings change tens of times a day, not millions).
 */
export class CosmosSettingsAuditLog implements SettingsAuditLog {
  constructor(
    private readonly container: Container,
    private readonly writer: PendingAuditWriter,
  ) {}

  async list(filter: AuditFilter, request: PageRequest): Promise<CursorPage<AuditEntry>> {
    // A change committed just before a crash left its entry pending: the trail shows it all the same.
    await this.writer.publishPending();
    const where: string[] = [];
    const parameters: SqlParameter[] = [];
    const add = (condition: string, name: string, value: string | undefined): void => {
      if (value === undefined) return;
      where.push(condition);
      parameters.push({ name, value });
    };
    add("c.resource.type = @type", "@type", filter.resourceType);
    add("c.resource.id = @id", "@id", filter.resourceId);
    add("c.actor = @actor", "@actor", filter.actor);
    add("c.at >= @from", "@from", filter.from);
    add("c.at <= @to", "@to", filter.to);
    const partitionKey =
      filter.resourceType !== undefined && filter.resourceId !== undefined
        ? `${filter.resourceType}|${filter.resourceId}`
        : undefined;
    const page = await pagedQuery<AuditDoc>(
      this.container,
      { where, parameters, sortField: "sortKey", descending: true, ...(partitionKey ? { partitionKey } : {}) },
      request,
    );
    return { ...page, items: page.items.map(toEntry) };
  }
}

function toEntry(doc: AuditDoc): AuditEntry {
  const { resourceKey: _key, sortKey: _sort, ...entry } = doc;
  return entry;
}
