import type { InvocationContext } from "@azure/functions";
import { getConfig } from "../config";
import { contextSink, Logger } from "../logging";

/** The structured logger of one invocation: its lines go to the invocation's context, tagged with the function. */
export function invocationLog(context: InvocationContext): Logger {
  return new Logger(getConfig().LOG_LEVEL, contextSink(context), { function: context.functionName, invocationId: context.invocationId });
}
