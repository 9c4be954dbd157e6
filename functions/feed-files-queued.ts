import { queuedFileSchema } from "../shared/app/feeds/queued-file";
import { services } from "../shared/composition";
import { registerQueueFunction } from "../shared/triggers/queue-function";

/**
 * Ingests an inbound file handed over on the `feed-files` queue (a resumed feed's waiting files): the
 * same ingestion as the blob trigger's (feed-files-ingest), whose outcomes make a repeated message
 * harmless (a file moved on is `gone`, the same content finishes the same job). A failure makes the
 * queue deliver it again.
 */
export const feedFilesQueued = registerQueueFunction("feed-files-queued", {
  queueName: "feed-files",
  schema: queuedFileSchema,
  handle: async ({ name }, log) => {
    const outcome = await services().feeds.ingestFile().execute(name);
    log.info("inbound file", { name, ...outcome });
  },
});
