import type { Container } from "@azure/cosmos";
import type { DeliveryRecovery } from "../../domain/delivery-recovery";
import type { DeliveryRecoveries, VersionedRecovery } from "../../ports/delivery-recoveries";
import { readDocument } from "./conditional-update";
import { isConflict, isNotFound, isPreconditionFailed, stripSystem } from "./cosmos-errors";

/** One per webhook, in its partition of `deliveries`; never listed with the deliveries (docType). */
const RECOVERY_ID = "recovery";

interface RecoveryDoc extends DeliveryRecovery {
  id: typeof RECOVERY_ID;
  docType: "recovery";
}

const toDoc = ({ _etag: _e, ...recovery }: DeliveryRecovery & { _etag?: string }): RecoveryDoc => ({
  ...recovery,
  id: RECOVERY_ID,
  docType: "recovery",
});

function toRecovery(doc: RecoveryDoc & { _etag?: string }): VersionedRecovery {
  const { id: _i, docType: _d, ...recovery } = stripSystem(doc);
  return doc._etag !== undefined ? { ...recovery, _etag: doc._etag } : recovery;
}

/** Webhooks' recoveries in the `deliveries` container (partition /webhookId). */
export class CosmosDeliveryRecoveries implements DeliveryRecoveries {
  constructor(private readonly container: Container) {}

  async get(webhookId: string): Promise<VersionedRecovery | undefined> {
    const doc = await readDocument<RecoveryDoc>(
      this.container,
      RECOVERY_ID,
      webhookId,
      (d) => d.docType === "recovery",
    );
    return doc === undefined ? undefined : toRecovery(doc);
  }

  async start(recovery: DeliveryRecovery): Promise<boolean> {
    try {
      await this.container.items.create(toDoc(recovery));
      return true;
    } catch (error) {
      if (!isConflict(error)) throw error;
    }
    const current = await this.get(recovery.webhookId);
    if (current === undefined) return this.start(recovery); // removed meanwhile
    if (current.status === "running") return false;
    return (await this.replaceIfUnchanged(recovery, current._etag ?? "")) !== undefined;
  }

  async replaceIfUnchanged(recovery: DeliveryRecovery, etag: string): Promise<string | undefined> {
    try {
      const { etag: next } = await this.container
        .item(RECOVERY_ID, recovery.webhookId)
        .replace(toDoc(recovery), { accessCondition: { type: "IfMatch", condition: etag } });
      return next ?? "";
    } catch (error) {
      if (isPreconditionFailed(error) || isNotFound(error)) return undefined;
      throw error;
    }
  }

  async stalled(before: string, limit: number): Promise<VersionedRecovery[]> {
    // Cross-partition; the sweep runs it every minute and finds few (a recovery is a person's action).
    const { resources } = await this.container.items
      .query<RecoveryDoc>({
        query: "SELECT TOP @n * FROM c WHERE c.docType = 'recovery' AND c.status = 'running' AND c.updatedAt < @before",
        parameters: [
          { name: "@n", value: limit },
          { name: "@before", value: before },
        ],
      })
      .fetchAll();
    return resources.map(toRecovery);
  }
}
