import type { Readable } from "node:stream";
import type { TokenCredential } from "@azure/core-auth";
import { BlobServiceClient, RestError } from "@azure/storage-blob";
import type { FileListing, FileStore, StoredFileInfo } from "../../ports/file-store";

const notFound = (error: unknown): boolean => error instanceof RestError && error.statusCode === 404;

/** The file store on Azure Blob Storage: one container per stage. */
export class BlobFileStore implements FileStore, FileListing {
  constructor(private readonly service: BlobServiceClient) {}

  static fromConnectionString(connectionString: string): BlobFileStore {
    return new BlobFileStore(BlobServiceClient.fromConnectionString(connectionString));
  }

  static fromEndpoint(endpoint: string, credential: TokenCredential): BlobFileStore {
    return new BlobFileStore(new BlobServiceClient(endpoint, credential));
  }

  private blob(container: string, name: string) {
    return this.service.getContainerClient(container).getBlockBlobClient(name);
  }

  async info(container: string, name: string): Promise<StoredFileInfo | undefined> {
    try {
      const p = await this.blob(container, name).getProperties();
      return { size: p.contentLength ?? 0, lastModified: p.lastModified ?? new Date(0), metadata: p.metadata ?? {} };
    } catch (error) {
      if (notFound(error)) return undefined;
      throw error;
    }
  }

  async read(container: string, name: string): Promise<Readable | undefined> {
    try {
      const response = await this.blob(container, name).download();
      return response.readableStreamBody as Readable;
    } catch (error) {
      if (notFound(error)) return undefined;
      throw error;
    }
  }

  async move(from: string, name: string, to: string): Promise<void> {
    const source = this.blob(from, name);
    const target = this.blob(to, name);
    try {
      // Same account: the server copies; a small file is copied at once, a large one is awaited.
      const poller = await target.beginCopyFromURL(source.url);
      await poller.pollUntilDone();
    } catch (error) {
      if (notFound(error)) return;
      throw error;
    }
    await source.deleteIfExists();
  }

  async *list(container: string, prefix: string): AsyncIterable<string> {
    for await (const blob of this.service.getContainerClient(container).listBlobsFlat({ prefix })) yield blob.name;
  }

  async touch(container: string, name: string, key: string, value: string): Promise<boolean> {
    const blob = this.blob(container, name);
    try {
      const p = await blob.getProperties();
      // Conditional on the ETag read, so metadata written in between is not lost.
      await blob.setMetadata({ ...p.metadata, [key]: value }, { conditions: { ifMatch: p.etag } });
      return true;
    } catch (error) {
      if (notFound(error)) return false;
      throw error;
    }
  }
}
