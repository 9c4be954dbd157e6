import type { CursorPage, PageRequest } from "../../domain/page-request";
import type { AuditEntry, AuditFilter } from "../../domain/settings-audit";
import type { SettingsAuditLog } from "../../ports/settings-audit-log";

/** The settings audit trail, newest first, filtered by item, actor or time. */
export class ListSettingsAudit {
  constructor(private readonly log: SettingsAuditLog) {}

  execute(input: { filter: AuditFilter; request: PageRequest }): Promise<CursorPage<AuditEntry>> {
    return this.log.list(input.filter, input.request);
  }
}
