import { RestError, type BlockBlobClient } from "@azure/storage-blob";
import type { Attributes } from "ssh2";
import type { Logger } from "../../shared/logging";
import { fileAttrs } from "./attributes";
import type { SftpFile } from "./backend";
import { contentTypeOf } from "./paths";
import { SftpRefusal, STATUS } from "./refusal";
import { BlockUpload, MAX_WAITING_BYTES } from "./upload";

/** Who an upload belongs to and whom it tells. */
export interface InboxUploadContext {
  feedId: string;
  log: Logger;
  /** Gives back the login's upload slot (upload-slots.ts), once the upload is committed or given up. */
  release: () => void;
  /** The ETag of the empty blob the open created: removed if the upload is given up, unless replaced meanwhile. */
  created: string;
  /** Told once the upload is committed (its content visible in `inbound`). */
  committed: (blobName: string) => void;
}

/**
 * A file being uploaded into a feed's inbox: written whole, in order, its content visible once closed
 * (until then the empty blob the open created; gone again if the upload is given up).
 */
export class InboxUpload implements SftpFile {
  private readonly upload: BlockUpload;

  constructor(
    readonly name: string,
    blob: BlockBlobClient,
    private readonly context: InboxUploadContext,
  ) {
    this.upload = new BlockUpload(name, blob);
  }

  async stat(): Promise<Attributes> {
    return fileAttrs(this.upload.received, new Date());
  }

  read(): Promise<Buffer | undefined> {
    return Promise.reject(new SftpRefusal(STATUS.OP_UNSUPPORTED, "files are not read back"));
  }

  write(offset: number, data: Buffer): Promise<void> {
    const upload = this.upload;
    if (!upload.failed && upload.waiting + data.length > MAX_WAITING_BYTES) {
      // The client sends without waiting for answers: holding it all is what a cap is for.
      upload.fail();
      this.context.log.warn("sftp upload failed: too many unanswered writes", {
        feedId: this.context.feedId,
        fileName: this.name,
        waitingBytes: upload.waiting,
      });
    }
    if (upload.failed) {
      return Promise.reject(
        new SftpRefusal(
          STATUS.FAILURE,
          `the upload has failed (more than ${MAX_WAITING_BYTES} bytes of writes were sent without waiting for their answers, or a write failed); nothing will be stored`,
        ),
      );
    }
    upload.waiting += data.length;
    return upload.after(async () => {
      upload.waiting -= data.length;
      if (upload.failed) throw new SftpRefusal(STATUS.FAILURE, "the upload has failed; nothing will be stored");
      if (offset !== upload.received) {
        upload.fail();
        throw new SftpRefusal(STATUS.FAILURE, "writes must be sequential (no gaps, no overlaps)");
      }
      try {
        await upload.append(data);
      } catch (error) {
        upload.fail();
        this.context.log.warn("sftp upload staging failed", {
          feedId: this.context.feedId,
          fileName: this.name,
          error: error instanceof Error ? error.message : String(error),
        });
        throw new SftpRefusal(STATUS.FAILURE, "storage failed");
      }
    });
  }

  /** Commits the blob once the writes before the close are done: it appears whole, or not at all. */
  async close(): Promise<void> {
    const upload = this.upload;
    try {
      await upload.settled();
      if (upload.failed) {
        await this.removeEmpty();
        throw new SftpRefusal(STATUS.FAILURE, "the upload failed; nothing was stored");
      }
      await upload.commit({
        blobHTTPHeaders: { blobContentType: contentTypeOf(this.name) },
        metadata: { feedId: this.context.feedId, source: "sftp" },
      });
    } finally {
      upload.dispose();
      this.context.release();
    }
    this.context.log.info("sftp file received", {
      feedId: this.context.feedId,
      fileName: this.name,
      bytes: upload.received,
    });
    this.context.committed(upload.blob.name);
  }

  /** The channel closed before CLOSE: never committed; the slot and the memory go now, the empty blob soon after. */
  abandon(): void {
    this.upload.fail();
    this.context.release();
    void this.removeEmpty();
  }

  /** Removes the empty blob the open created, unless another upload has replaced it since; never throws. */
  private async removeEmpty(): Promise<void> {
    try {
      await this.upload.blob.deleteIfExists({ conditions: { ifMatch: this.context.created } });
    } catch (error) {
      if (error instanceof RestError && error.statusCode === 412) return; // replaced: not ours any more
      this.context.log.warn("sftp upload given up: its empty file could not be removed", {
        feedId: this.context.feedId,
        fileName: this.name,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }
}
