import type { Readable } from "node:stream";

/** What the store says of a stored file. */
export interface StoredFileInfo {
  size: number;
  lastModified: Date;
  metadata: Record<string, string>;
}

/** Files in containers (`inbound`, `archive`, `quarantine`): read them and move them on. */
export interface FileStore {
  /** Undefined when the file is not there (moved on already). */
  info(container: string, name: string): Promise<StoredFileInfo | undefined>;
  /** A stream of the file's bytes; undefined when it is not there. */
  read(container: string, name: string): Promise<Readable | undefined>;
  /** Copies the file to `to` under the same name, then deletes it from `from`; nothing when it is gone already. */
  move(from: string, name: string, to: string): Promise<void>;
  /**
   * Copies the file to `to` as `toName`, its metadata plus `metadata`; the file stays. Nothing when
   * `toName` exists already (a repeated copy); "gone" when the file is not there.
   */
  copy(
    from: string,
    name: string,
    to: string,
    toName: string,
    metadata: Record<string, string>,
  ): Promise<"copied" | "present" | "gone">;
}

/** Listing files: a paused feed's inbox when the feed resumes. */
export interface FileListing {
  /** The names of the files in `container` whose names start with `prefix`. */
  list(container: string, prefix: string): AsyncIterable<string>;
}
