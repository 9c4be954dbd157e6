import { app, type InvocationContext, type Timer } from "@azure/functions";
import type { Logger } from "../logging";
import { inInvocationTrace, invocationLog } from "./invocation-log";
import { triggersEnabled } from "./trigger-gate";

export type TimerHandler = (timer: Timer, context: InvocationContext) => Promise<void>;

/** Registers a function on an NCRONTAB schedule (seconds first), not run at start-up; each run in its own trace context (a new trace, given by the host). */
export function registerTimerFunction(
  name: string,
  options: { schedule: string; handle: (log: Logger) => Promise<void> },
): TimerHandler {
  const handler: TimerHandler = (_timer, context) =>
    inInvocationTrace(context, () => options.handle(invocationLog(context)));
  if (triggersEnabled()) app.timer(name, { schedule: options.schedule, handler, runOnStartup: false });
  return handler;
}
