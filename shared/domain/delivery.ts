import { createHash } from "node:crypto";
import { z } from "zod";
import { eventNames, type EventEnvelope } from "./events";

/** The events a delivery can carry: the five subscribable ones and the verification event. */
export const deliveryEventNames = [...eventNames, "webhook.test"] as const;
export type DeliveryEventName = (typeof deliveryEventNames)[number];

export const deliveryStatuses = ["pending", "succeeded", "failed"] as const;
export type DeliveryStatus = (typeof deliveryStatuses)[number];

/** Attempts kept in the log: more than the default schedule's ten, so a whole round stays visible. */
export const MAX_ATTEMPT_LOG = 25;

export const deliveryAttemptSchema = z
  .object({
    at: z.iso.datetime(),
    statusCode: z
      .number()
      .int()
      .optional()
      .meta({ description: "The endpoint's HTTP status; absent when no answer came" }),
    error: z.string().optional().meta({ description: "Why the attempt failed" }),
    durationMs: z.number().int(),
  })
  .meta({ id: "WebhookDeliveryAttempt" });
export type DeliveryAttempt = z.infer<typeof deliveryAttemptSchema>;

export const deliverySchema = z
  .object({
    id: z.string().meta({
      description: "The webhook-id header and the envelope's id: one per event and webhook, the same on every retry",
    }),
    webhookId: z.string(),
    eventId: z.string(),
    event: z.enum(deliveryEventNames),
    status: z.enum(deliveryStatuses),
    attempts: z.number().int(),
    nextAttemptAt: z.iso.datetime().optional().meta({ description: "While pending: when the next attempt is due" }),
    lastAttempt: deliveryAttemptSchema.optional(),
    failureReason: z.string().optional().meta({ description: "Once failed: why no further attempt is made" }),
    createdAt: z.iso.datetime(),
    completedAt: z.iso.datetime().optional(),
  })
  .meta({ id: "WebhookDelivery" });
export type Delivery = z.infer<typeof deliverySchema>;

export const deliveryDetailSchema = deliverySchema
  .extend({
    attemptLog: z
      .array(deliveryAttemptSchema)
      .meta({ description: `The latest attempts, oldest first (at most ${MAX_ATTEMPT_LOG})` }),
  })
  .meta({ id: "WebhookDeliveryDetail" });
export type DeliveryDetail = z.infer<typeof deliveryDetailSchema>;

/** What is stored: the public record, the attempt log and the exact body every attempt sends. */
export interface StoredDelivery extends DeliveryDetail {
  /** The envelope JSON text `{ id, event, timestamp, data }`: every retry sends the same bytes. */
  payload: string;
  /** The event's timestamp (for latency figures). */
  eventTimestamp: string;
  /** Attempts made before a manual retry: the retry schedule starts again after it. */
  scheduleOffset: number;
}

/** Where a delivery is: what a `deliveries` message names. */
export interface DeliveryRef {
  webhookId: string;
  id: string;
}

/** One per event and webhook, so a repeated fan-out of the same event finds the record it made. */
export const deliveryIdOf = (eventId: string, webhookId: string): string =>
  `msg_${createHash("sha256").update(`${eventId}|${webhookId}`).digest("hex").slice(0, 32)}`;

/** A new pending delivery of `event` to one webhook, due now. */
export function newDelivery(
  event: Pick<EventEnvelope, "id" | "timestamp" | "data"> & { event: DeliveryEventName },
  webhookId: string,
  now: Date,
): StoredDelivery {
  const id = deliveryIdOf(event.id, webhookId);
  const createdAt = now.toISOString();
  return {
    id,
    webhookId,
    eventId: event.id,
    event: event.event,
    status: "pending",
    attempts: 0,
    nextAttemptAt: createdAt,
    createdAt,
    attemptLog: [],
    payload: JSON.stringify({ id, event: event.event, timestamp: event.timestamp, data: event.data }),
    eventTimestamp: event.timestamp,
    scheduleOffset: 0,
  };
}

/** The public record (list items): no payload, no log. */
export function publicDelivery(stored: StoredDelivery): Delivery {
  const {
    payload: _p,
    eventTimestamp: _t,
    scheduleOffset: _o,
    attemptLog: _l,
    _etag: _e,
    ...delivery
  } = stored as StoredDelivery & { _etag?: string };
  return delivery;
}

/** The single GET's record, with the attempt log. */
export function deliveryDetail(stored: StoredDelivery): DeliveryDetail {
  const {
    payload: _p,
    eventTimestamp: _t,
    scheduleOffset: _o,
    _etag: _e,
    ...delivery
  } = stored as StoredDelivery & { _etag?: string };
  return delivery;
}

/** Records one attempt: the count, the last attempt, and the log bounded to its newest entries. */
export function withAttempt(delivery: StoredDelivery, attempt: DeliveryAttempt): StoredDelivery {
  return {
    ...delivery,
    attempts: delivery.attempts + 1,
    lastAttempt: attempt,
    attemptLog: [...delivery.attemptLog, attempt].slice(-MAX_ATTEMPT_LOG),
  };
}

/** Final states drop the due time. */
export function succeeded(delivery: StoredDelivery, now: Date): StoredDelivery {
  const { nextAttemptAt: _n, failureReason: _f, ...rest } = delivery;
  return { ...rest, status: "succeeded", completedAt: now.toISOString() };
}

export function failed(delivery: StoredDelivery, now: Date, reason: string): StoredDelivery {
  const { nextAttemptAt: _n, ...rest } = delivery;
  return { ...rest, status: "failed", failureReason: reason, completedAt: now.toISOString() };
}
