import type { Stats } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import type { Attributes } from "ssh2";
import type { SftpFile } from "../local/sftp/backend";
import { SftpRefusal, STATUS } from "../local/sftp/refusal";

export function attrsOf(s: Stats): Attributes {
  return {
    mode: s.mode,
    uid: s.uid,
    gid: s.gid,
    size: s.size,
    atime: Math.floor(s.atimeMs / 1000),
    mtime: Math.floor(s.mtimeMs / 1000),
  };
}

function statusOf(error: unknown): number {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === "ENOENT" || code === "ENOTDIR") return STATUS.NO_SUCH_FILE;
  if (code === "EACCES" || code === "EPERM") return STATUS.PERMISSION_DENIED;
  return STATUS.FAILURE;
}

/** Runs fs work under `root`, refusing with the status of a failed call and its message, the root taken out. */
export async function onDisk<T>(root: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof SftpRefusal) throw error;
    throw new SftpRefusal(statusOf(error), error instanceof Error ? error.message.replace(root, "") : "failed");
  }
}

export interface DiskFileOptions {
  root: string;
  /** Milliseconds each WRITE waits before it is done. */
  writeDelayMs: number;
  /** Told when a file opened for writing is closed by the client. */
  closedWrite: (() => void) | undefined;
}

/** A file of the disk backend (sftp-disk-backend.ts), open for reading or writing. */
export class DiskFile implements SftpFile {
  constructor(
    private readonly file: FileHandle,
    private readonly options: DiskFileOptions,
  ) {}

  stat(): Promise<Attributes> {
    return onDisk(this.options.root, async () => attrsOf(await this.file.stat()));
  }

  read(offset: number, length: number): Promise<Buffer | undefined> {
    return onDisk(this.options.root, async () => {
      const buffer = Buffer.alloc(length);
      const { bytesRead } = await this.file.read(buffer, 0, length, offset);
      return bytesRead === 0 ? undefined : buffer.subarray(0, bytesRead);
    });
  }

  write(offset: number, data: Buffer): Promise<void> {
    return onDisk(this.options.root, async () => {
      if (this.options.writeDelayMs > 0) await new Promise((r) => setTimeout(r, this.options.writeDelayMs));
      await this.file.write(data, 0, data.length, offset);
    });
  }

  close(): Promise<void> {
    return onDisk(this.options.root, async () => {
      await this.file.close();
      this.options.closedWrite?.();
    });
  }

  abandon(): void {
    void this.file.close().catch(() => undefined);
  }
}
