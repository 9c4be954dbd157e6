/**
 * Attempts to ingest one version of an inbound file that started and have not finished, kept in the
 * store (not in the process, which is what such an attempt ends): a file whose ingestion keeps ending
 * its process (out of memory, killed) is given up on instead of being retried forever.
 */
export interface IngestAttempts {
  /**
   * Records, before any of the file is read, that an attempt of `version` starts; returns how many
   * attempts of it have started without finishing, this one included.
   */
  begin(version: string, now: Date): Promise<number>;
  /** The attempt ended, whatever its outcome: the version's unfinished attempts are forgotten. */
  end(version: string): Promise<void>;
}
