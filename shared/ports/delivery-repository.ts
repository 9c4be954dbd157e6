import type { DeliveryRef, DeliveryStatus, DeliveryEventName, StoredDelivery } from "../domain/delivery";
import type { CursorPage, PageRequest } from "../domain/page-request";

/** A stored delivery with the version a conditional write names. */
export type VersionedDelivery = StoredDelivery & { _etag?: string };

/** A pending delivery and the due time it is pending for. */
export interface DueDelivery extends DeliveryRef {
  nextAttemptAt: string;
}

/** Which deliveries a list shows: `from` and `to` bound `createdAt` (ISO times as stored, inclusive). */
export interface DeliveryFilter {
  status?: DeliveryStatus;
  event?: DeliveryEventName;
  from?: string;
  to?: string;
}

/** Webhook delivery records (one partition per webhook, so a webhook's log is one partition). */
export interface DeliveryRepository {
  /** Creates the record unless one with its id is there already; its version when this call created it, else undefined. */
  createIfAbsent(delivery: StoredDelivery): Promise<string | undefined>;
  /** createIfAbsent for several deliveries in one round trip; results in input order. */
  createManyIfAbsent(deliveries: readonly StoredDelivery[]): Promise<(string | undefined)[]>;
  get(ref: DeliveryRef): Promise<VersionedDelivery | undefined>;
  /** Several records in one round trip (point reads), by `deliveryKey`; missing ones are absent. */
  getMany(refs: readonly DeliveryRef[]): Promise<Map<string, VersionedDelivery>>;
  /**
   * Replaces the record only if it is still at `etag`; returns the new version, or undefined when
   * another write came first (the caller lost the race and must not act on what it read).
   */
  replaceIfUnchanged(delivery: StoredDelivery, etag: string): Promise<string | undefined>;
  /** replaceIfUnchanged for several deliveries in one round trip; results in input order. */
  replaceManyIfUnchanged(items: readonly { delivery: StoredDelivery; etag: string }[]): Promise<(string | undefined)[]>;
  /** Read-modify-write that re-applies `change` after a lost race; undefined from `change` keeps it. */
  update(
    ref: DeliveryRef,
    change: (current: StoredDelivery) => StoredDelivery | undefined,
  ): Promise<StoredDelivery | undefined>;
  /** A webhook's deliveries, newest first. */
  list(webhookId: string, filter: DeliveryFilter, request: PageRequest): Promise<CursorPage<StoredDelivery>>;
  /**
   * A webhook's deliveries that ended failed within `window` (completedAt, inclusive), in the order they
   * were created (deliveryOrder), after `after` ("" for the first), at most `limit`.
   */
  failedBetween(
    webhookId: string,
    window: { since: string; until: string },
    after: string,
    limit: number,
  ): Promise<VersionedDelivery[]>;
  /** How many deliveries failedBetween would list from the start. */
  countFailedBetween(webhookId: string, window: { since: string; until: string }): Promise<number>;
  /** Up to `limit` pending deliveries of one webhook. */
  pendingOf(webhookId: string, limit: number): Promise<DeliveryRef[]>;
  /** Pending deliveries, of any webhook, due before `before`, a page of up to `pageSize` at a time (one query, continued). */
  overdue(before: string, pageSize: number): AsyncIterable<DueDelivery[]>;
}

/** The key getMany answers by: ids are unique per webhook. */
export const deliveryKey = (ref: DeliveryRef): string => `${ref.webhookId}|${ref.id}`;
