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
}

/** Listing files and announcing them again: a paused feed's inbox when the feed resumes. */
export interface FileListing {
  /** The names of the files in `container` whose names start with `prefix`. */
  list(container: string, prefix: string): AsyncIterable<string>;
  /**
   * Announces the file again with one more metadata entry, the others, its bytes and headers kept: a
   * new version for a blob trigger (a new ETag; where the store can, a rewrite that raises
   * BlobCreated). How a paused feed's waiting files are ingested when it resumes. False when gone.
   */
  touch(container: string, name: string, key: string, value: string): Promise<boolean>;
}
