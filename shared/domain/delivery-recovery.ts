import type { StoredDelivery } from "./delivery";

/**
 * A webhook's recovery: its deliveries that ended failed between `since` and `until` (the moment it was
 * asked for), sent again one at a time in the order they were created, a step (a batch) per queue
 * message. One per webhook at a time. `after` is the order key of the last delivery a step went past,
 * `step` the number of the step the next message is for (a copy of an older message is stale), and
 * `leaseUntil` keeps a second copy of the same message from working on the step at the same time.
 */
export interface DeliveryRecovery {
  webhookId: string;
  since: string;
  until: string;
  /** Failed deliveries found when it was asked for. */
  count: number;
  /** Deliveries sent again so far. */
  sent: number;
  after: string;
  step: number;
  status: "running" | "done";
  leaseUntil?: string;
  startedAt: string;
  updatedAt: string;
  completedAt?: string;
  /** Why it ended before its last delivery (the webhook was disabled or deleted). */
  stoppedReason?: string;
}

/** The order deliveries are sent again in: when they were created, then by id. */
export const deliveryOrder = (delivery: Pick<StoredDelivery, "createdAt" | "id">): string =>
  `${delivery.createdAt}|${delivery.id}`;
