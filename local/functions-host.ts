import { InvocationContext, type TriggerMetadata } from "@azure/functions";
import { propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Logger, LogSink } from "../shared/logging";
import { newTraceparent, traceIdOf, traceparentOf } from "../shared/observability/trace-context";
import { installCore } from "./core-module";
import { hooksOf, registrations, type CoreBinding, type CoreRegistration } from "./functions-core";

export interface LoadedFunction {
  name: string;
  trigger: CoreBinding;
  handler: CoreRegistration["handler"];
  retryOptions?: unknown;
}

/** Loads the app through package.json `main` (its entry point registers every function), as the Functions host does. */
export function loadFunctions(appRoot: string): LoadedFunction[] {
  installCore();
  const { main } = JSON.parse(readFileSync(join(appRoot, "package.json"), "utf8")) as { main?: string };
  if (main === undefined) throw new Error(`${join(appRoot, "package.json")} names no main entry point`);
  require(join(appRoot, main));
  // As in Azure, the app setting `AzureWebJobs.<name>.Disabled` keeps a function from being triggered.
  const enabled = registrations.filter(
    (r) => !["true", "1"].includes(String(process.env[`AzureWebJobs.${r.name}.Disabled`]).toLowerCase()),
  );
  return enabled.map((r) => {
    const trigger = Object.values(r.bindings).find((b) => b.direction === "in" && b.type.endsWith("Trigger"));
    if (trigger === undefined) throw new Error(`function ${r.name} has no trigger`);
    return {
      name: r.name,
      trigger,
      handler: r.handler,
      ...(r.retryOptions !== undefined ? { retryOptions: r.retryOptions } : {}),
    };
  });
}

/** The context of one invocation, its log lines going to the local runtime's output; in `traceparent`'s trace (a new one if none). */
export function invocationContext(
  functionName: string,
  sink: LogSink,
  triggerMetadata?: TriggerMetadata,
  traceparent: string = newTraceparent(),
): InvocationContext {
  return new InvocationContext({
    functionName,
    invocationId: crypto.randomUUID(),
    traceContext: { traceParent: traceparent, attributes: {} },
    logHandler: (level, ...args) =>
      sink(
        level === "error" || level === "critical"
          ? "error"
          : level === "warning"
            ? "warn"
            : level === "debug" || level === "trace"
              ? "debug"
              : "info",
        args.map(String).join(" "),
      ),
    ...(triggerMetadata !== undefined ? { triggerMetadata } : {}),
  });
}

/** Spans the local host records for invocations, as the Functions host records each one (its `requests` in Application Insights). */
const tracer = trace.getTracer("local-functions-host");

export interface Invocation {
  /** The host's logger: the invocation's lines go to its sink, and the host logs each run at debug level. */
  log: Logger;
  triggerMetadata?: TriggerMetadata;
  /**
   * The trace the trigger continues (a message's traceparent), absent for a new one (a timer, a blob).
   * With `ownSpan`, the invocation runs in a span of its own, a child of it (a request named after the
   * function in Application Insights); without (HTTP, whose server span the http instrumentation
   * records), it runs in `parent` itself.
   */
  parent?: string;
  ownSpan?: boolean;
}

/**
 * Runs one invocation as the Functions host and worker do: the host gives it a trace context (a span
 * of its own continuing the trigger's, when Application Insights is on), the worker runs the
 * registered `preInvocation` hooks (the distro's activates that context), then the function; the host
 * logs the run with its operation id, as Azure's "Executed" line. (No other hook is used here; the
 * stand-in registers them all but runs only `preInvocation`.)
 */
export async function invoke(fn: LoadedFunction, inputs: unknown[], invocation: Invocation): Promise<unknown> {
  const { parent, log } = invocation;
  const parentContext =
    parent !== undefined ? propagation.extract(ROOT_CONTEXT, { traceparent: parent }) : ROOT_CONTEXT;
  const span =
    invocation.ownSpan === true
      ? tracer.startSpan(fn.name, { kind: SpanKind.SERVER, root: parent === undefined }, parentContext)
      : undefined;
  // With telemetry off a span records nothing and carries its parent's ids (or none): the invocation keeps the parent's trace, or starts one.
  const traceparent = traceparentOf(span?.spanContext()) ?? parent ?? newTraceparent();
  const context = invocationContext(fn.name, log.sink, invocation.triggerMetadata, traceparent);
  const started = performance.now();
  let outcome: "succeeded" | "failed" = "failed";
  try {
    const result = await run(fn, inputs, context);
    outcome = "succeeded";
    span?.setStatus({ code: SpanStatusCode.OK });
    return result;
  } catch (error) {
    span?.setStatus({ code: SpanStatusCode.ERROR, message: String(error) });
    throw error;
  } finally {
    span?.end();
    const durationMs = Math.round(performance.now() - started);
    log.debug("function executed", {
      function: fn.name,
      invocationId: context.invocationId,
      traceId: traceIdOf(traceparent),
      outcome,
      durationMs,
    });
  }
}

/** Shared by every invocation's hooks, as the worker's app-level hook data. */
const appHookData: Record<string, unknown> = {};

async function run(fn: LoadedFunction, inputs: unknown[], context: InvocationContext): Promise<unknown> {
  const pre = { invocationContext: context, inputs, functionCallback: fn.handler, hookData: {}, appHookData };
  for (const hook of hooksOf("preInvocation")) await hook(pre);
  return pre.functionCallback(...pre.inputs, context);
}
