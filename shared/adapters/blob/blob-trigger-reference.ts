import { ResourceFactoryResolver } from "@azure/functions-extensions-base";
import { z } from "zod";

/**
 * The blob a blob trigger fired for, named, not read: with `sdkBinding: true` the Functions host sends
 * the worker "model binding data" (source `AzureStorageBlobs`, JSON `{ Connection, ContainerName,
 * BlobName }`, as the Storage Blobs extension writes it) instead of the blob's bytes, and
 * `@azure/functions` turns it into the function's argument through the resource factory registered
 * for that source. Ours makes it this reference; the function streams the blob through the file store,
 * so a 1 GB file never sits in the worker's memory (Microsoft's `@azure/functions-extensions-blob`
 * would make it an SDK client instead, with its own credentials).
 */
export interface BlobTriggerReference {
  /** The app setting (prefix) naming the storage account, as the trigger's `connection`. */
  connection: string;
  containerName: string;
  blobName: string;
}

/** The model binding source of Azure Storage blobs (Microsoft.Azure.WebJobs.Extensions.Storage.Blobs). */
export const BLOB_BINDING_SOURCE = "AzureStorageBlobs";

const contentSchema = z.object({
  Connection: z.string(),
  ContainerName: z.string().min(1),
  BlobName: z.string().min(1),
});
const bindingDataSchema = z.object({
  source: z.literal(BLOB_BINDING_SOURCE),
  content: z.union([z.instanceof(Uint8Array), z.string()]),
});

/** The reference in one model binding data item (what the host sends for one blob). */
export function blobTriggerReferenceOf(data: unknown): BlobTriggerReference {
  const item = bindingDataSchema.parse(Array.isArray(data) ? data[0] : data);
  const text = typeof item.content === "string" ? item.content : Buffer.from(item.content).toString("utf8");
  const content = contentSchema.parse(JSON.parse(text));
  return { connection: content.Connection, containerName: content.ContainerName, blobName: content.BlobName };
}

/** The argument a blob function is handed: a reference, checked as any input is. */
export const blobTriggerReferenceSchema = z.object({
  connection: z.string(),
  containerName: z.string().min(1),
  blobName: z.string().min(1),
});

/**
 * Makes blob triggers with `sdkBinding: true` hand their functions a BlobTriggerReference. Called when
 * a blob function's module loads, before the host invokes it (in Azure and in the local blob host,
 * which resolves the same binding data through the same resolver).
 */
export function registerBlobTriggerReferences(): void {
  const resolver = ResourceFactoryResolver.getInstance();
  if (!resolver.hasResourceFactory(BLOB_BINDING_SOURCE))
    resolver.registerResourceFactory(BLOB_BINDING_SOURCE, blobTriggerReferenceOf);
}
