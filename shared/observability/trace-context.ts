import { AsyncLocalStorage } from "node:async_hooks";
import { randomBytes } from "node:crypto";
import { context, isSpanContextValid, propagation, trace, type SpanContext } from "@opentelemetry/api";

/**
 * The W3C trace context (`traceparent`) that ties one operation together across the asynchronous hops
 * (request → outbox → queue message → function → webhook POST), so Application Insights shows the chain
 * as one operation: its trace id is the operation id.
 *
 * With Application Insights on, OpenTelemetry's active context is the source of truth (the distro's
 * `preInvocation` hook activates the invocation's trace context, and instrumented calls parent their
 * spans to it). With it off, OpenTelemetry's API is a no-op, so the context is also kept in an
 * AsyncLocalStorage of our own: log lines and sent messages carry it either way.
 */

/** Version 00 of the W3C format: `00-<trace id>-<parent id>-<flags>`, lower-case hex. */
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
const ZERO_TRACE = "0".repeat(32);
const ZERO_SPAN = "0".repeat(16);

const ambient = new AsyncLocalStorage<string>();

/** `value` when it is a valid traceparent (all-zero ids are invalid), lower-cased; otherwise undefined. */
export function parseTraceparent(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  const match = TRACEPARENT.exec(value.trim().toLowerCase());
  if (match === null || match[1] === ZERO_TRACE || match[2] === ZERO_SPAN) return undefined;
  return match[0];
}

/** The trace id of a traceparent: Application Insights' operation id. */
export const traceIdOf = (traceparent: string): string => traceparent.slice(3, 35);

/** A new trace (sampled), for an invocation that continues none, as the Functions host starts one. */
export const newTraceparent = (): string =>
  `00-${randomBytes(16).toString("hex")}-${randomBytes(8).toString("hex")}-01`;

/** A span's traceparent, or undefined for an invalid span (what a tracer gives when telemetry is off). */
export function traceparentOf(span: SpanContext | undefined): string | undefined {
  if (span === undefined || !isSpanContextValid(span)) return undefined;
  return `00-${span.traceId}-${span.spanId}-${(span.traceFlags & 0xff).toString(16).padStart(2, "0")}`;
}

/** The trace context of the current work: the active span's, else the one the current invocation runs in. */
export function currentTraceparent(): string | undefined {
  return traceparentOf(trace.getSpanContext(context.active())) ?? ambient.getStore();
}

/** The operation id of the current work, if it runs in a trace context. */
export function currentTraceId(): string | undefined {
  const traceparent = currentTraceparent();
  return traceparent === undefined ? undefined : traceIdOf(traceparent);
}

/**
 * Runs `fn` in the trace context `traceparent` (OpenTelemetry's active context, and ours): what it
 * sends and logs continues that trace. An absent or invalid traceparent leaves the context as it is.
 */
export function withTraceparent<T>(traceparent: string | undefined, fn: () => T): T {
  const valid = parseTraceparent(traceparent);
  if (valid === undefined) return fn();
  const extracted = propagation.extract(context.active(), { traceparent: valid });
  return ambient.run(valid, () => context.with(extracted, fn));
}
