import { randomUUID } from "node:crypto";
import type { Container, OperationInput } from "@azure/cosmos";
import type { AuditEntry } from "../../../domain/settings-audit";
import type { AuditDraft } from "../../../domain/settings-changes";
import type { Clock } from "../../../ports/clock";
import { currentWriteContext } from "../../../observability/write-context";
import { cosmosStatus, isConflict, isNotFound } from "../cosmos-errors";

/**
 * The audit entry of a settings change travels with the change: one transactional batch in the item's
 * partition of the `settings` container writes the item and a pending-entry document beside it, so a
 * committed change always has its entry and a refused or failed one (nothing written) never does. The
 * entry is then copied into the `audit` container (id-idempotent) and the pending document removed; a
 * crash between the two leaves the pending document, which the next read of the trail copies first.
 */
export const PENDING_FIELD = "pendingAudit";

/** Settings queries leave the pending documents out with this condition. */
export const NOT_PENDING = `NOT IS_DEFINED(c.${PENDING_FIELD})`;

/** A point read that found a pending document (its id is not an item's) found no item. */
export const isItemDoc = (doc: object): boolean => !(PENDING_FIELD in doc);

export interface AuditDoc extends AuditEntry {
  /** Partition: `<type>|<id>`, so an item's own entries are one partition's read. */
  resourceKey: string;
  /** `<at>|<id>`: newest first, and the cursor of a deep scan. */
  sortKey: string;
}

export const auditDocOf = (entry: AuditEntry): AuditDoc => ({
  ...entry,
  resourceKey: `${entry.resource.type}|${entry.resource.id}`,
  sortKey: `${entry.at}|${entry.id}`,
});

/** Writes settings changes with their audit entries, and moves pending entries into the trail. */
export class PendingAuditWriter {
  constructor(
    private readonly settings: Container,
    private readonly audit: Container,
    private readonly clock: Clock,
  ) {}

  /**
   * The entry of a draft when the write is a change made through System Settings (the HTTP pipeline
   * marks those requests); undefined for the service's own writes (a schedule's next run, an
   * auto-disable), which the trail does not record.
   */
  entryOf(draft: AuditDraft | undefined): AuditEntry | undefined {
    const context = currentWriteContext();
    if (draft === undefined || context.audited !== true || context.requestId === null) return undefined;
    return {
      id: `au_${randomUUID().replaceAll("-", "")}`,
      at: this.clock.now().toISOString(),
      actor: context.recordedBy,
      requestId: context.requestId,
      ...draft,
    };
  }

  /**
   * Runs `operation` on the item in partition `kind` together with the entry's pending document (alone
   * when the change changed nothing worth an entry), and answers the operation's status (201, 200, 204;
   * 404, 409 or 412 when it was refused and nothing was written). Once committed, the entry is copied
   * into the trail.
   */
  async commit(kind: string, operation: OperationInput, entry: AuditEntry | undefined): Promise<number> {
    const pending = entry === undefined ? undefined : { id: `audit~${entry.id}`, kind, [PENDING_FIELD]: entry };
    // Each operation names the partition too: Cosmos takes the batch's, the local stand-in reads each one's.
    const operations: OperationInput[] = [{ ...operation, partitionKey: kind }];
    if (pending !== undefined)
      operations.push({ operationType: "Create", partitionKey: kind, resourceBody: pending as never });
    let status: number;
    try {
      const { result } = await this.settings.items.batch(operations, kind);
      status = result?.[0]?.statusCode ?? 500;
      const failed = result?.find((r) => r.statusCode >= 400);
      if (status < 400 && failed !== undefined) throw new Error(`the audit entry was refused (${failed.statusCode})`);
    } catch (error) {
      // A refused batch may come back as the failing operation's status rather than a multi-status.
      const refused = cosmosStatus(error);
      if (refused === 404 || refused === 409 || refused === 412) return refused;
      throw error;
    }
    if (status < 400 && entry !== undefined && pending !== undefined) {
      // The change is committed whatever happens next: a failed copy leaves the pending document to the next read.
      await this.publish(pending.id, kind, entry).catch(() => undefined);
    }
    return status;
  }

  /** Copies every pending entry into the trail (after a crash between a change and its copy). */
  async publishPending(): Promise<void> {
    const { resources } = await this.settings.items
      .query<{ id: string; kind: string; pendingAudit: AuditEntry }>({
        query: `SELECT c.id, c.kind, c.${PENDING_FIELD} FROM c WHERE IS_DEFINED(c.${PENDING_FIELD})`,
      })
      .fetchAll();
    for (const doc of resources) await this.publish(doc.id, doc.kind, doc.pendingAudit);
  }

  private async publish(pendingId: string, kind: string, entry: AuditEntry): Promise<void> {
    try {
      await this.audit.items.create(auditDocOf(entry));
    } catch (error) {
      if (!isConflict(error)) throw error;
    }
    try {
      await this.settings.item(pendingId, kind).delete();
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }
}
