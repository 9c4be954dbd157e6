import { app, type InvocationContext } from "@azure/functions";
import { z } from "zod";
import { services } from "../shared/composition";
import { idParam } from "../shared/domain/ids";

const messageSchema = z.object({ exportId: idParam(100), runId: idParam(100) });

/**
 * Performs one attempt of the export run an `exports` message names. A failed attempt schedules the
 * next itself; throwing (the store unreachable) makes the queue deliver the message again.
 */
export async function exportsRun(message: unknown, context: InvocationContext): Promise<void> {
  const parsed = messageSchema.safeParse(message);
  if (!parsed.success) {
    context.error(JSON.stringify({ message: "malformed exports message dropped", issues: parsed.error.issues.map((i) => i.message) }));
    return;
  }
  await services().exports.runExport().run(parsed.data);
}

app.serviceBusQueue("exports-run", { queueName: "exports", connection: "SERVICEBUS", handler: exportsRun });
