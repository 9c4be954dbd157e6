import type { BlobServiceClient, ContainerClient } from "@azure/storage-blob";
import { z } from "zod";
import { eventFilterSchema } from "./event-filter";

/**
 * The local Event Grid's subscriptions to the storage account's events, kept in the emulator itself
 * (what `az eventgrid … event-subscription create` makes in Azure): one JSON blob per subscription.
 * Each delivers the events its filter passes to one blob-triggered function: in Azure to the host's
 * blobs webhook, which puts them on the host's blob-trigger queue; locally straight onto that queue.
 */
export const SUBSCRIPTIONS_CONTAINER = "local-eventgrid-subscriptions";

export const eventSubscriptionSchema = z
  .object({
    name: z.string().regex(/^[A-Za-z0-9-]{3,64}$/),
    /** The blob-triggered function it delivers to (the webhook's `functionName` in Azure). */
    function: z.string().min(1),
    filter: eventFilterSchema,
  })
  .strict();
export type EventSubscription = z.infer<typeof eventSubscriptionSchema>;

/** The subscription of the file-drop trigger, as `postdeploy` names it and the function it delivers to. */
export const INBOUND_SUBSCRIPTION = { name: "inbound-files", function: "feed-files-ingest" } as const;

/**
 * The queue a function's events wait on: the host's blob-trigger queue (one per function here; a
 * storage queue name is 3-63 lower-case letters, digits and single hyphens).
 */
export function deliveryQueueOf(functionName: string): string {
  const tail = functionName
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");
  return `azure-webjobs-blobtrigger-${tail}`.slice(0, 63).replace(/-$/, "");
}

/** Creates or replaces a subscription. */
export async function saveSubscription(service: BlobServiceClient, subscription: EventSubscription): Promise<void> {
  const parsed = eventSubscriptionSchema.parse(subscription);
  const container = service.getContainerClient(SUBSCRIPTIONS_CONTAINER);
  await container.createIfNotExists();
  const body = JSON.stringify(parsed);
  await container.getBlockBlobClient(`${parsed.name}.json`).upload(body, Buffer.byteLength(body), {
    blobHTTPHeaders: { blobContentType: "application/json" },
  });
}

/** Every subscription; one that cannot be read is reported through `skipped` and left out, never fatal to the others. */
export async function loadSubscriptions(
  container: ContainerClient,
  skipped: (name: string, problem: string) => void,
): Promise<EventSubscription[]> {
  if (!(await container.exists())) return [];
  const found: EventSubscription[] = [];
  for await (const blob of container.listBlobsFlat()) {
    try {
      const text = (await container.getBlobClient(blob.name).downloadToBuffer()).toString("utf8");
      found.push(eventSubscriptionSchema.parse(JSON.parse(text)));
    } catch (error) {
      skipped(blob.name, error instanceof Error ? error.message : String(error));
    }
  }
  return found;
}
