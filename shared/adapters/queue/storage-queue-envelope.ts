import { parseTraceparent } from "../../observability/trace-context";

/**
 * A storage-queue message that carries a trace context: storage queues have no application properties
 * (Service Bus messages carry it in `Diagnostic-Id`), so the body travels wrapped with the sender's
 * `traceparent`, and the local queue host unwraps it: the function receives the body as it was sent.
 */
interface Traced {
  traceparent: string;
  body: unknown;
}

/** The content to send: the body wrapped with its traceparent, or the body alone without one. */
export const wrapTraced = (body: unknown, traceparent: string | undefined): unknown =>
  traceparent === undefined ? body : ({ traceparent, body } satisfies Traced);

/** A received content's body and traceparent; content that is not a wrapped body (no message of ours has only these two keys) is the body itself. */
export function unwrapTraced(content: unknown): { body: unknown; traceparent?: string } {
  if (typeof content !== "object" || content === null || Array.isArray(content)) return { body: content };
  const keys = Object.keys(content);
  const traceparent = parseTraceparent((content as Partial<Traced>).traceparent);
  if (keys.length !== 2 || !("body" in content) || traceparent === undefined) return { body: content };
  return { body: (content as Traced).body, traceparent };
}
