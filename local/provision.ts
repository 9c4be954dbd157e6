import type { CosmosClient } from "@azure/cosmos";
import { BlobServiceClient } from "@azure/storage-blob";
import { QueueServiceClient } from "@azure/storage-queue";
import { ensureDatabase } from "../shared/adapters/cosmos/cosmos-client";
import { queueNames } from "../shared/ports/message-bus";

export const QUEUES = queueNames;
export const BLOB_CONTAINERS = ["inbound", "archive", "quarantine"] as const;

/** Creates what Bicep creates in Azure: the Cosmos database and containers, the queues and blob containers. */
export async function provision(cosmos: CosmosClient, databaseId: string, storageConnectionString: string): Promise<void> {
  await ensureDatabase(cosmos, databaseId);
  const queues = QueueServiceClient.fromConnectionString(storageConnectionString);
  for (const name of QUEUES) await queues.getQueueClient(name).createIfNotExists();
  const blobs = BlobServiceClient.fromConnectionString(storageConnectionString);
  for (const name of BLOB_CONTAINERS) await blobs.getContainerClient(name).createIfNotExists();
}

/** The blob and queue ports named by an Azurite connection string. */
export function storagePorts(connectionString: string): { blob: number; queue: number } {
  const port = (key: string, fallback: number): number => {
    const m = new RegExp(`${key}=https?://[^:;/]+:(\\d+)`, "i").exec(connectionString);
    return m?.[1] === undefined ? fallback : Number(m[1]);
  };
  return { blob: port("BlobEndpoint", 10000), queue: port("QueueEndpoint", 10001) };
}
