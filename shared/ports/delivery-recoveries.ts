import type { DeliveryRecovery } from "../domain/delivery-recovery";

/** A recovery as stored, with the version a conditional write names. */
export type VersionedRecovery = DeliveryRecovery & { _etag?: string };

/** The recovery of each webhook (one at a time per webhook), beside its deliveries. */
export interface DeliveryRecoveries {
  get(webhookId: string): Promise<VersionedRecovery | undefined>;
  /** Stores a new recovery, over a finished one; false (nothing stored) while one is running. */
  start(recovery: DeliveryRecovery): Promise<boolean>;
  /** Replaces it only if it is still at `etag`: its new version, or undefined when another write came first. */
  replaceIfUnchanged(recovery: DeliveryRecovery, etag: string): Promise<string | undefined>;
  /** Running recoveries, of any webhook, last written before `before` (their next step may have been lost), at most `limit`. */
  stalled(before: string, limit: number): Promise<VersionedRecovery[]>;
}
