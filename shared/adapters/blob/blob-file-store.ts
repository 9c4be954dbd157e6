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

  async copy(
    from: string,
    name: string,
    to: string,
    toName: string,
    metadata: Record<string, string>,
  ): Promise<"copied" | "present" | "gone"> {
    const info = await this.info(from, name);
    if (info === undefined) return "gone";
    try {
      const poller = await this.blob(to, toName).beginCopyFromURL(this.blob(from, name).url, {
        metadata: { ...info.metadata, ...metadata },
        conditions: { ifNoneMatch: "*" },
      });
      await poller.pollUntilDone();
      return "copied";
    } catch (error) {
      if (notFound(error)) return "gone";
      if (error instanceof RestError && (error.statusCode === 409 || error.statusCode === 412)) return "present";
      throw error;
    }
  }

  async *list(container: string, prefix: string): AsyncIterable<string> {
    for await (const blob of this.service.getContainerClient(container).listBlobsFlat({ prefix })) yield blob.name;
  }

  /**
   * Makes `name` a folder of `container`: with a hierarchical namespace (Azure's SFTP accounts) the
   * empty blob marked `hdi_isfolder` is a directory. Nothing when it exists already.
   */
  async createFolder(container: string, name: string): Promise<void> {
    try {
      await this.blob(container, name).upload("", 0, {
        metadata: { hdi_isfolder: "true" },
        conditions: { ifNoneMatch: "*" },
      });
    } catch (error) {
      // It exists: 409 BlobAlreadyExists (412 from a store that answers the condition so).
      if (error instanceof RestError && (error.statusCode === 409 || error.statusCode === 412)) return;
      throw error;
    }
  }
}
