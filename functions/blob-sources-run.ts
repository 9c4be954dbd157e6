import { blobSourceMessageSchema } from "../shared/app/blob-sources/blob-source-runs";
import { services } from "../shared/composition";
import { registerQueueFunction } from "../shared/triggers/queue-function";

/**
 * Performs a blob source run from the `blob-sources` queue: copies the customer container's new blob
 * versions into `inbound`, where ingestion takes them. A run that fails is recorded `failed` (the
 * next run continues from what was recorded); an error recording it makes the queue try again.
 */
export const blobSourcesRun = registerQueueFunction("blob-sources-run", {
  queueName: "blob-sources",
  schema: blobSourceMessageSchema,
  handle: async (message, log) => {
    const run = await services().blobSources.runBlobSource().execute(message);
    if (run !== undefined)
      log.info("blob source run", {
        blobSourceId: run.blobSourceId,
        runId: run.id,
        status: run.status,
        copied: run.copied,
        skipped: run.skipped,
      });
  },
});
