import type { CosmosClient } from "@azure/cosmos";
import { BlobServiceClient } from "@azure/storage-blob";
import { QueueServiceClient } from "@azure/storage-queue";
import { ensureDatabase } from "../shared/adapters/cosmos/cosmos-client";
import { parseStorageConnectionString } from "../shared/domain/storage-connection-string";
import { queueNames } from "../shared/ports/message-bus";
import { inboundEventFilter } from "./event-grid/event-filter";
import { saveSubscription } from "./event-grid/subscriptions";
import { INBOUND_SUBSCRIPTION } from "./event-grid/subscription-names";

export const QUEUES = queueNames;
export const BLOB_CONTAINERS = ["inbound", "archive", "quarantine"] as const;
/**
 * Containers that stand for a customer's own storage account on the local Azurite, so the docs' local
 * blob examples and `npm run seed` have somewhere to write (an export) and read (a blob source).
 */
export const CUSTOMER_CONTAINERS = ["customer-exports", "customer-positions"] as const;

/**
 * Creates what Bicep creates in Azure (the Cosmos database and containers, the queues and blob
 * containers, and locally a customer's containers) and what `postdeploy` does (the Event Grid subscription of the file-drop trigger, with
 * the filter both read from infra/hooks/inbound-event-filter.json).
 */
export async function provision(
  cosmos: CosmosClient,
  databaseId: string,
  storageConnectionString: string,
): Promise<void> {
  await ensureDatabase(cosmos, databaseId);
  const queues = QueueServiceClient.fromConnectionString(storageConnectionString);
  for (const name of QUEUES) await queues.getQueueClient(name).createIfNotExists();
  const blobs = BlobServiceClient.fromConnectionString(storageConnectionString);
  for (const name of [...BLOB_CONTAINERS, ...CUSTOMER_CONTAINERS])
    await blobs.getContainerClient(name).createIfNotExists();
  await saveSubscription(blobs, { ...INBOUND_SUBSCRIPTION, filter: inboundEventFilter() });
}

/** The blob and queue ports named by an Azurite connection string (Azurite's defaults where it names none). */
export function storagePorts(connectionString: string): { blob: number; queue: number } {
  const connection = parseStorageConnectionString(connectionString);
  const port = (endpoint: string | undefined, fallback: number): number => {
    const given = endpoint !== undefined && URL.canParse(endpoint) ? new URL(endpoint).port : "";
    return given === "" ? fallback : Number(given);
  };
  return { blob: port(connection.blobEndpoint, 10000), queue: port(connection.queueEndpoint, 10001) };
}
