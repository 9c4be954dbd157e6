import { randomBytes } from "node:crypto";
import type { BlockBlobClient } from "@azure/storage-blob";

/** Bytes gathered before they are staged as one block. */
export const BLOCK_BYTES = 4 * 1024 * 1024;
/**
 * WRITE bytes an upload may have waiting for their answers (queued behind a block being staged). SFTP
 * clients keep a bounded number of writes in flight (OpenSSH 64 × 32 KB); a client that sends without
 * waiting would otherwise have the server hold whatever it sends.
 */
export const MAX_WAITING_BYTES = 4 * 1024 * 1024;

/**
 * One file being uploaded into a block blob: WRITEs are copied into one block buffer (allocated at the
 * first write, reused for every block), each full buffer is staged as the next block, and the block
 * list is committed at close. Memory per upload: the block buffer and at most MAX_WAITING_BYTES of
 * writes waiting behind it. WRITEs and the close run one after another, in arrival order.
 */
export class BlockUpload {
  received = 0;
  failed = false;
  /** Bytes of WRITEs accepted but not yet answered. */
  waiting = 0;
  private queue: Promise<void> = Promise.resolve();
  private buffer: Buffer | undefined;
  private filled = 0;
  private readonly blockIds: string[] = [];
  private readonly blockPrefix = randomBytes(12).toString("hex");

  constructor(
    readonly name: string,
    readonly blob: BlockBlobClient,
  ) {}

  /** Runs `work` after everything queued before it; answers its outcome (a failure fails the upload). */
  after(work: () => Promise<void>): Promise<void> {
    const done = this.queue.then(work);
    this.queue = done.catch(() => {
      this.fail();
    });
    return done;
  }

  /** Waits for the queued work. */
  settled(): Promise<void> {
    return this.queue;
  }

  /** Copies `data` (the next bytes of the file) in, staging each block that fills. */
  async append(data: Buffer): Promise<void> {
    let from = 0;
    while (from < data.length && !this.failed) {
      this.buffer ??= Buffer.allocUnsafe(BLOCK_BYTES);
      const n = data.copy(this.buffer, this.filled, from);
      this.filled += n;
      from += n;
      this.received += n;
      if (this.filled === BLOCK_BYTES) await this.stage();
    }
  }

  /** Stages the rest and commits the block list: the blob appears whole, or not at all. */
  async commit(options: Parameters<BlockBlobClient["commitBlockList"]>[1]): Promise<void> {
    await this.stage();
    this.dispose();
    await this.blob.commitBlockList(this.blockIds, options);
  }

  /** The upload will not be committed: its memory goes now. */
  fail(): void {
    this.failed = true;
    this.dispose();
  }

  /** Lets the block buffer go (the upload is committed or given up). */
  dispose(): void {
    this.buffer = undefined;
  }

  private async stage(): Promise<void> {
    if (this.filled === 0 || this.buffer === undefined) return;
    // Block ids of one blob all have the same length.
    const id = Buffer.from(`${this.blockPrefix}-${String(this.blockIds.length).padStart(6, "0")}`).toString("base64");
    await this.blob.stageBlock(id, this.buffer.subarray(0, this.filled), this.filled);
    this.blockIds.push(id);
    this.filled = 0;
  }
}
