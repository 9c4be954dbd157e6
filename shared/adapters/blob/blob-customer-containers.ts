import type { Readable } from "node:stream";
import type { TokenCredential } from "@azure/core-auth";
import { BlobServiceClient, ContainerClient, RestError, StorageSharedKeyCredential } from "@azure/storage-blob";
import type { ContainerLocation } from "../../domain/blob-source-container-url";
import { type CopyOutcome, type CustomerContainers } from "../../ports/blob-sources";
import { CustomerBlobError, CustomerContainerError, type CustomerBlob } from "../../domain/customer-blob";
import { emulatorAccountOf, parseStorageConnectionString } from "../../domain/storage-connection-string";

/** Block size and parallel blocks of a copy: at most 4 × 4 MiB of a file in memory, whatever its size. */
const BLOCK_BYTES = 4 * 1024 * 1024;
const PARALLEL_BLOCKS = 4;

/** The service's container that file ingestion watches. */
const INBOUND = "inbound";

const IDENTITY_ERRORS = new Set([
  "CredentialUnavailableError",
  "AuthenticationError",
  "AggregateAuthenticationError",
  "AuthenticationRequiredError",
]);

/** A failure as a message fit for a run record: status and code, never a header, token or key. */
function translate(error: unknown, location: ContainerLocation): unknown {
  if (error instanceof CustomerContainerError) return error;
  const where = `the container ${location.url}`;
  if (error instanceof RestError) {
    if (error.statusCode === 403) {
      return new CustomerContainerError(
        `${where} refused the service (403 ${error.code ?? "Forbidden"}): grant the service's managed identity the Storage Blob Data Reader role on it`,
      );
    }
    if (error.statusCode === 404)
      return new CustomerContainerError(`${where} does not exist (404 ${error.code ?? "NotFound"})`);
    if (error.statusCode !== undefined)
      return new CustomerContainerError(
        `${where} answered ${error.statusCode}${error.code !== undefined ? ` ${error.code}` : ""}`,
      );
    return new CustomerContainerError(
      `${where} could not be reached${error.code !== undefined ? ` (${error.code})` : ""}`,
    );
  }
  if (error instanceof Error && IDENTITY_ERRORS.has(error.name))
    return new CustomerContainerError(`the service's managed identity could not get a token for ${where}`);
  return error;
}

const statusOf = (error: unknown): number | undefined => (error instanceof RestError ? error.statusCode : undefined);

/**
 * Customers' containers on Azure Blob Storage, read with the service's managed identity (or, for the
 * local emulator the service itself runs on, the emulator's account key); copies stream into the
 * service's `inbound` container. Nothing is ever written to or deleted from a customer's container.
 */
export class BlobCustomerContainers implements CustomerContainers {
  constructor(
    /** The service's own `inbound` container. */
    private readonly inbound: ContainerClient,
    /** The managed identity (DefaultAzureCredential), built on first use. */
    private readonly identity: () => TokenCredential,
    /** The emulator's account key, when the service runs on the emulator. */
    private readonly emulatorKey: StorageSharedKeyCredential | undefined,
  ) {}

  /**
   * With the service's storage: its connection string (local; the emulator's key then also reads
   * emulator containers), or its blob endpoint and the managed identity (Azure).
   */
  static forService(
    storage: { connectionString?: string | undefined; blobEndpoint?: string | undefined },
    identity: () => TokenCredential,
  ): BlobCustomerContainers {
    if (storage.connectionString !== undefined) {
      const inbound = BlobServiceClient.fromConnectionString(storage.connectionString).getContainerClient(INBOUND);
      return new BlobCustomerContainers(inbound, identity, emulatorKeyOf(storage.connectionString));
    }
    if (storage.blobEndpoint !== undefined)
      return new BlobCustomerContainers(
        new BlobServiceClient(storage.blobEndpoint, identity()).getContainerClient(INBOUND),
        identity,
        undefined,
      );
    throw new Error("blob sources need STORAGE_CONNECTION_STRING or STORAGE_BLOB_ENDPOINT");
  }

  async *list(location: ContainerLocation, prefix: string | undefined): AsyncIterable<CustomerBlob[]> {
    const pages = this.client(location)
      .listBlobsFlat(prefix !== undefined && prefix !== "" ? { prefix } : {})
      .byPage({ maxPageSize: 1000 });
    try {
      for await (const page of pages)
        yield page.segment.blobItems.map((b) => ({ name: b.name, etag: b.properties.etag ?? "" }));
    } catch (error) {
      throw translate(error, location);
    }
  }

  async copyToInbound(
    location: ContainerLocation,
    blob: CustomerBlob,
    inboundName: string,
    metadata: Record<string, string>,
  ): Promise<CopyOutcome> {
    let body: Readable;
    let contentType: string | undefined;
    try {
      // Exactly the version listed; a newer one is the next run's.
      const download = await this.client(location)
        .getBlobClient(blob.name)
        .download(0, undefined, { conditions: { ifMatch: blob.etag } });
      body = download.readableStreamBody as Readable;
      contentType = download.contentType;
    } catch (error) {
      const status = statusOf(error);
      if (status === 412 || status === 404) return "changed";
      // An answer about this blob (409 BlobArchived, a 403 for this blob alone): the others may still be copied.
      if (status !== undefined)
        throw new CustomerBlobError(`"${blob.name}": ${(translate(error, location) as Error).message}`);
      throw translate(error, location);
    }
    try {
      await this.inbound.getBlockBlobClient(inboundName).uploadStream(body, BLOCK_BYTES, PARALLEL_BLOCKS, {
        metadata,
        // The same version always has the same inbound name: never overwrite it while it may be ingested.
        conditions: { ifNoneMatch: "*" },
        ...(contentType !== undefined ? { blobHTTPHeaders: { blobContentType: contentType } } : {}),
      });
      return "copied";
    } catch (error) {
      body.destroy();
      const status = statusOf(error);
      if (status === 409 || status === 412) return "present";
      throw translate(error, location);
    }
  }

  private client(location: ContainerLocation): ContainerClient {
    if (!location.emulator) return new ContainerClient(location.url, this.identity());
    if (this.emulatorKey === undefined)
      throw new CustomerContainerError("emulator containers can be read only when the service runs on the emulator");
    return new ContainerClient(location.url, this.emulatorKey);
  }
}

/** The emulator's account key from the service's connection string; undefined on Azure. */
export function emulatorKeyOf(connectionString: string): StorageSharedKeyCredential | undefined {
  const account = emulatorAccountOf(parseStorageConnectionString(connectionString));
  return account === undefined ? undefined : new StorageSharedKeyCredential(account.accountName, account.accountKey);
}
