import { app, type InvocationContext } from "@azure/functions";
import {
  blobTriggerReferenceSchema,
  registerBlobTriggerReferences,
} from "../shared/adapters/blob/blob-trigger-reference";
import { INBOUND } from "../shared/app/feeds/ingest-file-parts";
import { services } from "../shared/composition";
import { inInvocationTrace, invocationLog } from "../shared/triggers/invocation-log";
import { triggersEnabled } from "../shared/triggers/trigger-gate";

// The trigger hands the function a reference to the blob, never its bytes (sdkBinding below).
registerBlobTriggerReferences();

/** A file landed in `inbound/<feedId>/<fileName>` (SFTP or a blob upload): ingest it with its feed's definition, streaming it from the store. */
export function feedFilesIngest(blob: unknown, context: InvocationContext): Promise<void> {
  // In the invocation's trace context: the import's events, valuations and webhooks continue it.
  return inInvocationTrace(context, async () => {
    const { containerName, blobName } = blobTriggerReferenceSchema.parse(blob);
    if (containerName !== INBOUND)
      throw new Error(`feed-files-ingest was triggered for a blob of '${containerName}', not '${INBOUND}'`);
    const outcome = await services().feeds.ingestFile().execute(blobName);
    invocationLog(context).info("inbound file", { name: blobName, ...outcome });
  });
}

// Flex Consumption runs blob triggers from Event Grid only (the subscription: infra/README.md).
if (triggersEnabled())
  app.storageBlob("feed-files-ingest", {
    path: `${INBOUND}/{name}`,
    connection: "AzureWebJobsStorage",
    source: "EventGrid",
    sdkBinding: true,
    handler: feedFilesIngest,
  });
