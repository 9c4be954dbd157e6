import { randomUUID } from "node:crypto";
import { BlobServiceClient } from "@azure/storage-blob";
import { QueueServiceClient } from "@azure/storage-queue";
import { inboundEventFilter } from "../local/event-grid/event-filter";
import { BLOB_CREATED, BLOB_DELETED, type StorageEvent } from "../local/event-grid/storage-event";
import { storageEventSchema } from "../local/event-grid/storage-event-schema";
import { saveSubscription } from "../local/event-grid/subscriptions";
import { deliveryQueueOf } from "../local/event-grid/subscription-names";

/**
 * Subscribes a blob-triggered function to a container's events with the file-drop trigger's filter
 * (infra/hooks/inbound-event-filter.json) moved to that container: what `postdeploy` makes for
 * `inbound`, for a test's own container. Answers the function's name (unique: hosts in other test
 * files read other functions' queues).
 */
export async function subscribeContainer(connection: string, containerName: string, prefix: string): Promise<string> {
  const fn = `${prefix}-${randomUUID().slice(0, 8)}`;
  await saveSubscription(BlobServiceClient.fromConnectionString(connection), {
    name: fn,
    function: fn,
    filter: { ...inboundEventFilter(), subjectBeginsWith: `/blobServices/default/containers/${containerName}/` },
  });
  return fn;
}

/**
 * Every storage event under a subject prefix, as a subscription with no API filter receives them: a
 * window on what the storage account raises (the test reads its queue, no function does).
 */
export async function observeEvents(
  connection: string,
  subjectBeginsWith: string,
): Promise<{ events(): Promise<StorageEvent[]> }> {
  const fn = `observer-${randomUUID().slice(0, 8)}`;
  await saveSubscription(BlobServiceClient.fromConnectionString(connection), {
    name: fn,
    function: fn,
    filter: { includedEventTypes: [BLOB_CREATED, BLOB_DELETED], subjectBeginsWith, advancedFilters: [] },
  });
  const queue = QueueServiceClient.fromConnectionString(connection).getQueueClient(deliveryQueueOf(fn));
  await queue.createIfNotExists();
  return {
    async events() {
      const peeked = await queue.peekMessages({ numberOfMessages: 32 });
      return peeked.peekedMessageItems
        .map((m) => storageEventSchema.parse(JSON.parse(Buffer.from(m.messageText, "base64").toString("utf8"))))
        .sort((a, b) => a.data.sequencer?.localeCompare(b.data.sequencer ?? "") ?? 0);
    },
  };
}
