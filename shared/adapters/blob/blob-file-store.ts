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

  /**
   * A file stored in blocks is committed again from its own blocks (Put Block List: no data moves),
   * a new version that Event Grid reports as BlobCreated, as a new upload would be; one stored in one
   * piece (Put Blob), or created over Azure's SFTP endpoint (which refuses block operations on its
   * files), gets the metadata stamp only. Either way it has a new ETag, and the same bytes and headers. Conditional on the ETag read, so a write in between is never overwritten.
   */
  async touch(container: string, name: string, key: string, value: string): Promise<boolean> {
    const blob = this.blob(container, name);
    try {
      const p = await blob.getProperties();
      const metadata = { ...p.metadata, [key]: value };
      const conditions = { ifMatch: p.etag };
      const blocks = await this.committedBlocks(container, name, p.contentLength);
      if (blocks !== undefined) {
        await blob.commitBlockList(blocks, {
          metadata,
          conditions,
          blobHTTPHeaders: {
            blobContentType: p.contentType,
            blobContentEncoding: p.contentEncoding,
            blobContentLanguage: p.contentLanguage,
            blobContentDisposition: p.contentDisposition,
            blobCacheControl: p.cacheControl,
            blobContentMD5: p.contentMD5,
          },
        });
      } else {
        await blob.setMetadata(metadata, { conditions });
      }
      return true;
    } catch (error) {
      if (notFound(error)) return false;
      throw error;
    }
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

  /**
   * The ids of the blocks the file consists of, or undefined when it is not made of committed blocks
   * (stored whole) or the store will not say: Azure refuses block operations on files created over
   * its SFTP endpoint.
   */
  private async committedBlocks(
    container: string,
    name: string,
    size: number | undefined,
  ): Promise<string[] | undefined> {
    try {
      const blocks = (await this.blob(container, name).getBlockList("committed")).committedBlocks ?? [];
      const bytes = blocks.reduce((sum, b) => sum + b.size, 0);
      return blocks.length > 0 && bytes === size ? blocks.map((b) => b.name) : undefined;
    } catch (error) {
      if (error instanceof RestError && error.statusCode !== 404) return undefined;
      throw error;
    }
  }
}
