import type { InvocationContext } from "@azure/functions";
import { getConfig } from "../config";
import { contextSink, Logger } from "../logging";
import { parseTraceparent, traceIdOf, withTraceparent } from "../observability/trace-context";

/**
 * The W3C trace context the host gave this invocation: the HTTP request's `traceparent`, the Service
 * Bus message's `Diagnostic-Id`, or a new trace (a timer, a blob).
 */
export const invocationTraceparent = (context: InvocationContext): string | undefined =>
  parseTraceparent(context.traceContext?.traceParent);

/** Runs an invocation's work in its trace context, so that what it logs and sends continues the trace. */
export const inInvocationTrace = <T>(context: InvocationContext, work: () => T): T =>
  withTraceparent(invocationTraceparent(context), work);

/** The structured logger of one invocation: its lines go to the invocation's context, tagged with the function and the operation id. */
export function invocationLog(context: InvocationContext, fields: Record<string, unknown> = {}): Logger {
  const traceparent = invocationTraceparent(context);
  return new Logger(getConfig().LOG_LEVEL, contextSink(context), {
    function: context.functionName,
    invocationId: context.invocationId,
    ...(traceparent !== undefined ? { traceId: traceIdOf(traceparent) } : {}),
    ...fields,
  });
}
