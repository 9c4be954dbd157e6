import type { Attributes, FileEntry } from "ssh2";

/**
 * What the SFTP subsystem (subsystem.ts) serves one login from: its files, reached by path as the
 * client sends it. Every method may throw an SftpRefusal (refusal.ts), answered as its status; any
 * other error is told to `failed` and answered as a plain failure.
 */
export interface SftpBackend {
  /** The canonical path of `path` (REALPATH) and the attributes shown with it. */
  realpath(path: string): Promise<SftpName>;
  stat(path: string): Promise<Attributes>;
  /** SETSTAT: attributes are not changed; this checks the path may be named. */
  setstat(path: string): Promise<void>;
  /** OPENDIR: checks `path` is a directory; its entries are read at the first READDIR. */
  openDirectory(path: string): Promise<SftpDirectory>;
  /** OPEN without the WRITE flag. */
  openForRead(path: string): Promise<SftpFile>;
  /** OPEN with the WRITE flag; `flags` are the request's (OPEN_MODE bits). */
  openForWrite(path: string, flags: number): Promise<SftpFile>;
  remove(path: string): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  mkdir(path: string): Promise<void>;
  rmdir(path: string): Promise<void>;
  symlink(target: string, link: string): Promise<void>;
  /** The target of the link `path`. */
  readlink(path: string): Promise<SftpName>;
  /** Told of an error that is not a refusal (a bug, a storage outage): the request is answered FAILURE. */
  failed(error: unknown): void;
}

/** A path as REALPATH and READLINK answer it. */
export interface SftpName {
  path: string;
  attrs: Attributes;
}

/** An open directory. */
export interface SftpDirectory {
  stat(): Promise<Attributes>;
  /** Every entry, read once; the subsystem answers READDIRs from it in batches. */
  list(): Promise<FileEntry[]>;
}

/** An open file. */
export interface SftpFile {
  stat(): Promise<Attributes>;
  /** Up to `length` bytes from `offset`; undefined at the end of the file. */
  read(offset: number, length: number): Promise<Buffer | undefined>;
  /** Called in the order the WRITEs arrive; settles when the write is to be answered. */
  write(offset: number, data: Buffer): Promise<void>;
  /** The client's CLOSE: what was written is kept (settles once it is). */
  close(): Promise<void>;
  /** The channel ended with the file open: nothing more will come; what it holds is let go. */
  abandon(): void;
}
