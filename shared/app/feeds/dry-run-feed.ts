import { Readable } from "node:stream";
import type { Slots } from "../../domain/concurrency";
import { AppError } from "../../domain/errors";
import { compileFilePattern } from "../../domain/feed";
import { dryRunSummary, type DryRunSummary } from "../../domain/feed-validation";
import { FileFormatError } from "../../domain/source-record";
import type { FeedRepository } from "../../ports/feed-repository";
import type { FileReaders } from "../../ports/file-readers";
import { firstPass } from "./feed-records";
import { definitionOf } from "./ingest-file-parts";
import { storedFeed } from "./stored-feeds";

/** The largest sample a dry run takes. */
export const DRY_RUN_MAX_BYTES = 10 * 1024 * 1024;

/** What a dry run refused for want of a slot asks the client to wait. */
const DRY_RUN_RETRY_AFTER_SECONDS = 5;

export interface DryRunFeedDeps {
  repository: FeedRepository;
  /** The readers of the feeds' file formats (the dry run reads with them, as ingestion does). */
  readers: FileReaders;
  /** The dry runs this process parses at once (FEED_DRY_RUN_CONCURRENCY): one count per instance. */
  slots: Slots;
}

/**
 * The first pass of ingestion on a sample file: read as the feed says (format, options), each record
 * mapped and validated under the feed's `validation`, giving the counts, row errors, a preview and
 * the verdict a delivered file would get. Nothing is written. A name the pattern does not match, or
 * a file the reader cannot read, is a 422. Parsing holds memory of this process (up to about 100 MB
 * for a workbook), so only so many run at once; one more is a 503 with Retry-After.
 */
export class DryRunFeed {
  constructor(private readonly deps: DryRunFeedDeps) {}

  async execute({ id, fileName, file }: { id: string; fileName: string; file: Buffer }): Promise<DryRunSummary> {
    const feed = await storedFeed(this.deps.repository, id);
    // A stored feed was valid when saved; re-parsed, it has the defaults the schema may have gained since.
    const definition = definitionOf(feed);
    if (!compileFilePattern(definition.filePattern)(fileName)) {
      throw new AppError("VALIDATION_ERROR", "The file name does not match the feed's filePattern", {
        details: [
          { field: "fileName", message: `"${fileName}" does not match ${JSON.stringify(definition.filePattern)}` },
        ],
      });
    }
    const slots = this.deps.slots;
    const release = slots.tryAcquire();
    if (release === undefined) {
      throw new AppError(
        "SERVICE_UNAVAILABLE",
        `${slots.limit} dry run${slots.limit === 1 ? " is" : "s are"} running on this instance, as many as it takes at once; retry shortly`,
        {
          headers: { "Retry-After": String(DRY_RUN_RETRY_AFTER_SECONDS) },
        },
      );
    }
    try {
      return dryRunSummary(await firstPass(this.deps.readers, definition, Readable.from([file])));
    } catch (error) {
      if (!(error instanceof FileFormatError)) throw error;
      const where = error.row !== undefined ? ` (record ${error.row})` : "";
      throw new AppError("VALIDATION_ERROR", `The file cannot be read as ${definition.format}${where}`, {
        details: [{ field: "file", message: error.message }],
      });
    } finally {
      release();
    }
  }
}
