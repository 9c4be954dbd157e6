import type { CursorPage, PageRequest } from "../domain/page-request";
import type { AuditEntry, AuditFilter } from "../domain/settings-audit";

/** The settings audit trail: every change made through System Settings, newest first. */
export interface SettingsAuditLog {
  list(filter: AuditFilter, request: PageRequest): Promise<CursorPage<AuditEntry>>;
}
