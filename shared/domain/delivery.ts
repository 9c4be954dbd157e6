import { createHash, randomUUID } from "node:crypto";
import { z } from "zod";
import {
  appendAttempt,
  attemptLogEntrySchema,
  attemptSummary,
  deliveryAttemptSchema,
  MAX_ATTEMPT_LOG,
  shownAttempt,
  type StoredAttempt,
} from "./delivery-attempt";
import { eventNames, type EventEnvelope } from "./events";

/** The events a delivery can carry: the five subscribable ones and the verification event. */
export const deliveryEventNames = [...eventNames, "webhook.test"] as const;
export type DeliveryEventName = (typeof deliveryEventNames)[number];

export const deliveryStatuses = ["pending", "succeeded", "failed"] as const;
export type DeliveryStatus = (typeof deliveryStatuses)[number];

export const deliverySchema = z
  .object({
    id: z.string().meta({
      description: "The webhook-id header and the envelope's id: one per event and webhook, the same on every retry",
    }),
    webhookId: z.string(),
    eventId: z.string(),
    event: z.enum(deliveryEventNames),
    subject: z.string().optional().meta({
      description:
        "What the event is about: the portfolio (portfolio.valued), transaction (transaction.settled), exception (exception.created, exception.resolved), job (refresh_job.*) or webhook (webhook.test) id",
    }),
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
    attemptLog: z.array(attemptLogEntrySchema).meta({
      description: `The latest attempts, oldest first (at most ${MAX_ATTEMPT_LOG}), each with what was sent and what came back`,
    }),
  })
  .meta({ id: "WebhookDeliveryDetail" });
export type DeliveryDetail = z.infer<typeof deliveryDetailSchema>;

/** What is stored: the public record, the attempt log and the exact body every attempt sends. */
export interface StoredDelivery extends Delivery {
  /** Oldest first, bounded (appendAttempt); each entry without the body sent, which is `payload`. */
  attemptLog: StoredAttempt[];
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

/** The field of each event's `data` that names what the event is about. */
const SUBJECT_FIELD: Record<DeliveryEventName, string> = {
  "portfolio.valued": "portfolioId",
  "transaction.settled": "transactionId",
  "exception.created": "exceptionId",
  "exception.resolved": "exceptionId",
  "refresh_job.completed": "jobId",
  "refresh_job.failed": "jobId",
  "webhook.test": "webhookId",
};

/** The id of what an event is about (a portfolio, transaction, exception, job or webhook), when its data names one. */
export function subjectOf(event: DeliveryEventName, data: Readonly<Record<string, unknown>>): string | undefined {
  const value = data[SUBJECT_FIELD[event]];
  return typeof value === "string" && value !== "" ? value : undefined;
}

/** A new pending delivery of `event` to one webhook, due now. */
export function newDelivery(
  event: Pick<EventEnvelope, "id" | "timestamp" | "data"> & { event: DeliveryEventName },
  webhookId: string,
  now: Date,
): StoredDelivery {
  const id = deliveryIdOf(event.id, webhookId);
  const createdAt = now.toISOString();
  const subject = subjectOf(event.event, event.data);
  return {
    id,
    webhookId,
    eventId: event.id,
    event: event.event,
    ...(subject !== undefined ? { subject } : {}),
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

/** A new `webhook.test` delivery (an event of its own, `data: { webhookId }`), due now. */
export function testDelivery(webhookId: string, now: Date): StoredDelivery {
  const event = {
    id: `evt_test_${randomUUID().replaceAll("-", "")}`,
    event: "webhook.test" as const,
    timestamp: now.toISOString(),
    data: { webhookId },
  };
  return newDelivery(event, webhookId, now);
}

/** The subject of a record written before deliveries kept one: read from the body it sends. */
function withSubject<T extends Delivery>(delivery: T, payload: string): T {
  if (delivery.subject !== undefined) return delivery;
  try {
    const { data } = JSON.parse(payload) as { data?: Record<string, unknown> };
    const subject = data !== undefined ? subjectOf(delivery.event, data) : undefined;
    return subject !== undefined ? { ...delivery, subject } : delivery;
  } catch {
    return delivery;
  }
}

/** The public record (list items): no payload, no log. */
export function publicDelivery(stored: StoredDelivery): Delivery {
  const {
    payload,
    eventTimestamp: _t,
    scheduleOffset: _o,
    attemptLog: _l,
    _etag: _e,
    ...delivery
  } = stored as StoredDelivery & { _etag?: string };
  return withSubject(delivery, payload);
}

/** The single GET's record, with the attempt log: each attempt with what was sent (the stored body) and what came back. */
export function deliveryDetail(stored: StoredDelivery): DeliveryDetail {
  const {
    payload,
    eventTimestamp: _t,
    scheduleOffset: _o,
    attemptLog,
    _etag: _e,
    ...delivery
  } = stored as StoredDelivery & { _etag?: string };
  return { ...withSubject(delivery, payload), attemptLog: attemptLog.map((a) => shownAttempt(a, payload)) };
}

/** Records one attempt: the count, the last attempt, and the log bounded (appendAttempt). */
export function withAttempt(delivery: StoredDelivery, attempt: StoredAttempt): StoredDelivery {
  return {
    ...delivery,
    attempts: delivery.attempts + 1,
    lastAttempt: attemptSummary(attempt),
    attemptLog: appendAttempt(delivery.attemptLog, attempt),
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

/** A failed delivery made pending again, due now, its retry schedule starting afresh (a manual retry, a recovery). */
export function reopened(delivery: StoredDelivery, now: Date): StoredDelivery {
  const { completedAt: _c, failureReason: _f, ...rest } = delivery;
  return { ...rest, status: "pending", nextAttemptAt: now.toISOString(), scheduleOffset: delivery.attempts };
}
