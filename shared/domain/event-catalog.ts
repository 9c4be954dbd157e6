import { z } from "zod";
import { eventEnvelopeSchema, eventNames, type EventEnvelope, type EventName } from "./events";

export const webhookEventSchema = z
  .object({
    name: z.enum(eventNames),
    description: z.string(),
    example: eventEnvelopeSchema.meta({ description: "What a delivery's body looks like (illustrative values)" }),
  })
  .meta({ id: "WebhookEvent" });
export type WebhookEvent = z.infer<typeof webhookEventSchema>;

/** One entry per event, so that a new event name cannot be left out of the catalogue (the compiler says so). */
const catalog: Record<EventName, { description: string; timestamp: string; data: EventEnvelope["data"] }> = {
  "portfolio.valued": {
    description:
      "A portfolio has been valued (after new positions, prices or FX rates); complete false: totalValue leaves out unvaluedCount holdings that could not be valued; asAt: read the portfolio and its holdings with ?asAt= this to see exactly what the event announced",
    timestamp: "2026-11-25T06:02:11.408Z",
    data: {
      portfolioId: "pf_7Qx2mVb1kR9s",
      valuationDate: "2026-11-24",
      totalValue: 1254300.55,
      currency: "EUR",
      complete: false,
      unvaluedCount: 2,
      asAt: "2026-11-25T06:02:11.391Z",
    },
  },
  "transaction.settled": {
    description:
      "A transaction has reached settled; asAt: read the transaction with ?asAt= this to see the settled version the event announced",
    timestamp: "2026-11-25T09:15:00.000Z",
    data: {
      transactionId: "txn_5f2c0c6e9d1a4b7f8e3d2c1b0a998877",
      portfolioId: "pf_7Qx2mVb1kR9s",
      securityId: "sec_DE0007164600",
      settlementDate: "2026-11-25",
      quantity: 150,
      netAmount: 17912.5,
      currency: "EUR",
      asAt: "2026-11-25T09:15:00.004Z",
    },
  },
  "exception.created": {
    description: "A new data-quality exception was opened",
    timestamp: "2026-11-25T06:02:11.512Z",
    data: {
      exceptionId: "exc_9a8b7c6d5e4f3a2b1c0d",
      type: "MISSING_PRICE",
      severity: "warning",
      message: "No close price for DE0007164600 on or before 2026-11-24",
      entity: { type: "security", id: "sec_DE0007164600" },
    },
  },
  "exception.resolved": {
    description:
      "A data-quality exception was resolved: by a person (resolvedBy is their API client id) or by the service when a revaluation no longer found its cause (resolvedBy system)",
    timestamp: "2026-11-25T07:40:02.911Z",
    data: {
      exceptionId: "exc_9a8b7c6d5e4f3a2b1c0d",
      type: "MISSING_PRICE",
      resolvedBy: "system",
      resolution:
        "A close price of 2026-11-24 now values security sec_DE0007164600 in portfolio pf_7Qx2mVb1kR9s on 2026-11-24",
    },
  },
  "refresh_job.completed": {
    description: "A data refresh job completed (an import, or a file from SFTP or a blob source)",
    timestamp: "2026-11-25T06:01:58.120Z",
    data: {
      jobId: "job_3c1f9e7a2b4d",
      source: "sftp",
      dataType: "positions",
      fileName: "positions_20261124.csv",
      counts: { received: 1250, accepted: 1250, rejected: 0, removed: 3 },
      startedAt: "2026-11-25T06:01:55.004Z",
      completedAt: "2026-11-25T06:01:58.120Z",
    },
  },
  "refresh_job.failed": {
    description: "A data refresh job failed (the file was quarantined; nothing was written)",
    timestamp: "2026-11-25T06:01:57.300Z",
    data: {
      jobId: "job_8d2e4f6a1b3c",
      source: "sftp",
      dataType: "positions",
      fileName: "positions_20261124.csv",
      counts: { received: 1250, accepted: 0, rejected: 3, removed: 0 },
      startedAt: "2026-11-25T06:01:55.004Z",
      completedAt: "2026-11-25T06:01:57.300Z",
      error: "row 12: isin: fails the ISIN check digit",
    },
  },
};

/** The events a webhook can subscribe to, each with what it means and an example of its envelope. */
export const webhookEvents: readonly WebhookEvent[] = eventNames.map((name) => {
  const { description, timestamp, data } = catalog[name];
  return { name, description, example: { id: "msg_2b7e151628aed2a6abf7158809cf4f3c", event: name, timestamp, data } };
});
