import { createHash } from "node:crypto";
import { z } from "zod";

export const eventNames = [
  "portfolio.valued",
  "transaction.settled",
  "exception.created",
  "exception.resolved",
  "refresh_job.completed",
  "refresh_job.failed",
] as const;
export type EventName = (typeof eventNames)[number];

/** The webhook envelope: the spec's `event`, `timestamp`, `data`, plus `id` (the webhook-id). */
export const eventEnvelopeSchema = z
  .object({
    id: z.string(),
    event: z.enum(eventNames),
    timestamp: z.iso.datetime(),
    data: z.record(z.string(), z.unknown()),
  })
  .meta({ id: "EventEnvelope" });
export type EventEnvelope = z.infer<typeof eventEnvelopeSchema>;

/** Event ids derive from what caused them, so a retried write appends the same event once. */
export const eventIdOf = (event: EventName, cause: string): string =>
  `evt_${createHash("sha256").update(`${event}|${cause}`).digest("hex").slice(0, 32)}`;
