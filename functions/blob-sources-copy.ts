import { app, type InvocationContext } from "@azure/functions";
import { services } from "../shared/composition";
import { blobSourceMessageSchema } from "../shared/app/blob-source-runner";

/**
 * Performs a blob source run from the `blob-sources` queue: copies the customer container's new blob
 * versions into `inbound`, where ingestion takes them. A run that fails is recorded `failed` (the
 * next run continues from what was recorded); an error recording it makes the queue try again.
 */
export async function blobSourcesCopy(message: unknown, context: InvocationContext): Promise<void> {
  const parsed = blobSourceMessageSchema.safeParse(message);
  if (!parsed.success) {
    context.error(JSON.stringify({ message: "malformed blob-sources message dropped", issues: parsed.error.issues.map((i) => i.message) }));
    return;
  }
  const run = await services().blobSources.runBlobSource().run(parsed.data);
  if (run !== undefined) context.log(JSON.stringify({ message: "blob source run", blobSourceId: run.blobSourceId, runId: run.id, status: run.status, copied: run.copied, skipped: run.skipped }));
}

app.serviceBusQueue("blob-sources-copy", { queueName: "blob-sources", connection: "SERVICEBUS", handler: blobSourcesCopy });
