import { app, type InvocationContext, type Timer } from "@azure/functions";
import type { Logger } from "../logging";
import { invocationLog } from "./invocation-log";

export type TimerHandler = (timer: Timer, context: InvocationContext) => Promise<void>;

/** Registers a function on an NCRONTAB schedule (seconds first), not run at start-up. */
export function registerTimerFunction(name: string, options: { schedule: string; handle: (log: Logger) => Promise<void> }): TimerHandler {
  const handler: TimerHandler = async (_timer, context) => options.handle(invocationLog(context));
  app.timer(name, { schedule: options.schedule, handler, runOnStartup: false });
  return handler;
}
