import { z } from "zod";
import { idParam } from "./ids";
import { cursorQuery } from "./page-request";
import { fromInstant, toInstant } from "./time-bounds";

/** What a secret's value reads as in the audit trail, before and after (API.md, "Settings audit trail"). */
export const REDACTED = "(redacted)";

export const auditResourceTypes = ["api-client", "webhook", "feed", "blob-source", "export", "replica-login"] as const;
export type AuditResourceType = (typeof auditResourceTypes)[number];

export const auditActions = ["created", "updated", "deleted", "rotated", "enabled", "disabled", "run"] as const;
export type AuditAction = (typeof auditActions)[number];

const changeValue = z.unknown().meta({
  description: `The value as the settings answers showed it (null when absent); "${REDACTED}" for a secret`,
});

export const auditChangeSchema = z
  .object({
    field: z.string().meta({ description: "Dotted path of the field, e.g. destination.host" }),
    from: changeValue,
    to: changeValue,
  })
  .meta({ id: "SettingsAuditChange" });
export type AuditChange = z.infer<typeof auditChangeSchema>;

export const auditEntrySchema = z
  .object({
    id: z.string(),
    at: z.iso.datetime().meta({ description: "When the change was made (the service's clock, UTC)" }),
    actor: z.string().meta({ description: "The API client id that made it" }),
    requestId: z.string().meta({ description: "The X-Request-Id of the request that made it" }),
    action: z.enum(auditActions),
    resource: z.object({ type: z.enum(auditResourceTypes), id: z.string(), name: z.string() }),
    changes: z.array(auditChangeSchema),
  })
  .meta({ id: "SettingsAuditEntry" });
export type AuditEntry = z.infer<typeof auditEntrySchema>;

export const auditListQuery = cursorQuery.extend({
  resourceType: z.enum(auditResourceTypes).optional(),
  resourceId: idParam(200).optional(),
  actor: idParam(200).optional().meta({ description: "The API client id that made the changes" }),
  from: fromInstant.optional(),
  to: toInstant.optional(),
});

export interface AuditFilter {
  resourceType?: AuditResourceType;
  resourceId?: string;
  actor?: string;
  from?: string;
  to?: string;
}

/**
 * What an audited write needs of one kind of settings item: its type in the trail, its name, and the
 * form the settings answers show. Anything the stored form holds beyond that view is a secret (or a
 * secret's hash or sealed copy): its changes are recorded redacted, never its value.
 */
export interface AuditSubject<T> {
  type: AuditResourceType;
  name(item: T): string;
  publicView(item: T): object;
}

/**
 * What the use case knows and the stored form cannot show: a rotation whose secret the store never holds
 * (a replica login's password lives in the database, an SFTP password in Azure's local user), or an
 * action that changes no field of the item (a Run now).
 */
export interface AuditNote {
  action: AuditAction;
  /** Fields whose secret value changed, each recorded as redacted. */
  secrets?: string[];
  /** What the action did beyond the item's own fields (a Run now: the run it started). */
  changes?: AuditChange[];
}
