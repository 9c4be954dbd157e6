import { z } from "zod";

/** How much of an answer's body an attempt keeps: its first 4 KB. */
export const RESPONSE_BODY_BYTES = 4096;

/** Attempts kept in the log: more than the default schedule's ten, so a whole round stays visible. */
export const MAX_ATTEMPT_LOG = 25;

/**
 * What the answers of one delivery's log may hold in all (headers and bodies, newest first): a record
 * is rewritten whole at every attempt, so 25 answers of 4 KB each would make every retry a 100 KB write.
 * Older answers past it are dropped (`responseOmitted`); the summary of each attempt stays.
 */
export const LOG_RESPONSE_BYTES = 16 * 1024;

const headers = z.record(z.string(), z.string());

/** One attempt as the list's `lastAttempt` shows it. */
export const deliveryAttemptSchema = z
  .object({
    at: z.iso.datetime(),
    statusCode: z
      .number()
      .int()
      .optional()
      .meta({ description: "The endpoint's HTTP status; absent when no answer came" }),
    error: z.string().optional().meta({ description: "Why the attempt failed" }),
    durationMs: z.number().int().meta({ description: "From sending to the answer's status line" }),
  })
  .meta({ id: "WebhookDeliveryAttempt" });
export type DeliveryAttempt = z.infer<typeof deliveryAttemptSchema>;

export const attemptResponseSchema = z
  .object({
    headers: headers.meta({ description: "The answer's headers (names in lower case)" }),
    body: z
      .string()
      .meta({ description: `The first ${RESPONSE_BODY_BYTES / 1024} KB of the answer's body, as UTF-8 text` }),
    bodyTruncated: z.boolean().optional().meta({ description: "True when the body was longer than what is kept" }),
  })
  .meta({ id: "WebhookAttemptResponse" });
export type AttemptResponse = z.infer<typeof attemptResponseSchema>;

/** One attempt in a delivery's log: the summary, what was sent and what came back. */
export const attemptLogEntrySchema = deliveryAttemptSchema
  .extend({
    request: z
      .object({
        headers: headers.meta({
          description: "The headers sent (webhook-id, webhook-timestamp, webhook-signature, ...); never a secret",
        }),
        body: z.string().meta({ description: "The body sent: the event envelope, the same on every attempt" }),
      })
      .meta({ id: "WebhookAttemptRequest" }),
    response: attemptResponseSchema.optional().meta({ description: "Absent when no answer came (see error)" }),
    responseOmitted: z
      .boolean()
      .optional()
      .meta({
        description: `True when an older answer was dropped to keep the log small (answers are kept newest first, ${LOG_RESPONSE_BYTES / 1024} KB in all)`,
      }),
  })
  .meta({ id: "WebhookDeliveryAttemptDetail" });
export type AttemptLogEntry = z.infer<typeof attemptLogEntrySchema>;

/** An entry as stored: the request's body is the delivery's payload, kept once, not per attempt. */
export type StoredAttempt = DeliveryAttempt & {
  request?: { headers: Record<string, string> };
  response?: AttemptResponse;
  responseOmitted?: boolean;
};

/** What one POST came to, as the sender reports it. */
export interface AttemptOutcome {
  at: Date;
  statusCode?: number;
  error?: string;
  durationMs: number;
  requestHeaders: Readonly<Record<string, string>>;
  response?: AttemptResponse;
}

/** The log entry of one POST. */
export function attemptEntry(outcome: AttemptOutcome): StoredAttempt {
  return {
    at: outcome.at.toISOString(),
    ...(outcome.statusCode !== undefined ? { statusCode: outcome.statusCode } : {}),
    ...(outcome.error !== undefined ? { error: outcome.error } : {}),
    durationMs: Math.round(outcome.durationMs),
    request: { headers: { ...outcome.requestHeaders } },
    ...(outcome.response !== undefined ? { response: outcome.response } : {}),
  };
}

/** The summary of an entry (the list's `lastAttempt`). */
export function attemptSummary({ at, statusCode, error, durationMs }: StoredAttempt): DeliveryAttempt {
  return {
    at,
    ...(statusCode !== undefined ? { statusCode } : {}),
    ...(error !== undefined ? { error } : {}),
    durationMs,
  };
}

const responseBytes = (response: AttemptResponse): number =>
  Buffer.byteLength(response.body) +
  Object.entries(response.headers).reduce((n, [k, v]) => n + k.length + v.length + 4, 0);

/**
 * The log after one more attempt: the newest MAX_ATTEMPT_LOG entries, and of their answers only as many,
 * newest first, as fit LOG_RESPONSE_BYTES (the newest is always kept).
 */
export function appendAttempt(log: readonly StoredAttempt[], entry: StoredAttempt): StoredAttempt[] {
  const kept = [...log, entry].slice(-MAX_ATTEMPT_LOG);
  let budget = LOG_RESPONSE_BYTES;
  for (let i = kept.length - 1; i >= 0; i--) {
    const { response, ...rest } = kept[i]!;
    if (response === undefined) continue;
    const bytes = responseBytes(response);
    if (i === kept.length - 1 || bytes <= budget) budget -= bytes;
    else kept[i] = { ...rest, responseOmitted: true };
  }
  return kept;
}

/** An entry as the API shows it: with the body that was sent (legacy entries without headers show none). */
export function shownAttempt(entry: StoredAttempt, payload: string): AttemptLogEntry {
  const { request, ...rest } = entry;
  return { ...rest, request: { headers: request?.headers ?? {}, body: payload } };
}
