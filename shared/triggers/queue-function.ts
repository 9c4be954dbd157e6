import { app, type InvocationContext } from "@azure/functions";
import type { z } from "zod";
import type { Logger } from "../logging";
import type { QueueName } from "../ports/message-bus";
import { inInvocationTrace, invocationLog } from "./invocation-log";
import { triggersEnabled } from "./trigger-gate";

export type QueueHandler = (message: unknown, context: InvocationContext) => Promise<void>;

/**
 * Registers a function triggered by one of the service's queues (Service Bus in Azure, Azurite's
 * queues locally, connection `SERVICEBUS`). A message that does not pass `schema` is logged (the
 * problems, not the content) and dropped: no retry can make it valid, so it must not go round to the
 * dead-letter queue. Whatever `handle` throws makes the queue deliver the message again. `handle` runs
 * in the message's trace context (the host's, from the sender's), so what it sends and logs continues it.
 */
export function registerQueueFunction<S extends z.ZodType>(
  name: string,
  options: { queueName: QueueName; schema: S; handle: (message: z.infer<S>, log: Logger) => Promise<void> },
): QueueHandler {
  const handler: QueueHandler = (message, context) =>
    inInvocationTrace(context, async () => {
      const log = invocationLog(context);
      const parsed = options.schema.safeParse(message);
      if (!parsed.success) {
        log.error(`malformed ${options.queueName} message dropped`, {
          issues: parsed.error.issues.slice(0, 5).map((i) => ({ path: i.path.join("."), message: i.message })),
        });
        return;
      }
      await options.handle(parsed.data, log);
    });
  if (triggersEnabled()) app.serviceBusQueue(name, { queueName: options.queueName, connection: "SERVICEBUS", handler });
  return handler;
}
