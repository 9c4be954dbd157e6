import type { BlobServiceClient, ContainerClient } from "@azure/storage-blob";
import { z } from "zod";
import { eventFilterSchema } from "./event-filter";
import { SUBSCRIPTIONS_CONTAINER } from "./subscription-names";

/** A subscription as stored (subscription-names.ts says where). */
export const eventSubscriptionSchema = z
  .object({
    name: z.string().regex(/^[A-Za-z0-9-]{3,64}$/),
    /** The blob-triggered function it delivers to (the webhook's `functionName` in Azure). */
    function: z.string().min(1),
    filter: eventFilterSchema,
  })
  .strict();
export type EventSubscription = z.infer<typeof eventSubscriptionSchema>;

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
