import { CosmosSettingsAuditLog } from "../adapters/cosmos/settings-audit/cosmos-settings-audit-log";
import { ListSettingsAudit } from "../app/settings-audit/list-settings-audit";
import type { CoreServices } from "./core";
import { lazy } from "./lazy";

/** The settings audit trail's reads (its entries are written by the settings repositories). */
export class SettingsAuditServices {
  constructor(private readonly core: CoreServices) {}

  readonly auditLog = lazy(
    () => new CosmosSettingsAuditLog(this.core.cosmos().container("audit"), this.core.settingsAudit()),
  );
  readonly listSettingsAudit = lazy(() => new ListSettingsAudit(this.auditLog()));
}
