import { parseContainerUrl, type ServiceStorage } from "../../domain/blob-source-container-url";
import type { BlobSource } from "../../domain/blob-source";
import { baseNameOf, inboundNameOf, MAX_RUN_FILES } from "../../domain/blob-source-run";
import { compileFilePattern } from "../../domain/feed-file-pattern";
import type { Logger } from "../../logging";
import type { Clock } from "../../ports/clock";
import type { FeedRepository } from "../../ports/feed-repository";
import type { SettingsRepository } from "../../ports/settings-repository";
import type {
  BlobSourceVersions,
  CopyOutcome,
  CustomerContainers,
  StoredBlobSourceRun,
} from "../../ports/blob-sources";
import { CustomerBlobError, CustomerContainerError, versionKey, type CustomerBlob } from "../../domain/customer-blob";
import { inboundNameProblem, printableName } from "../../domain/inbound-name";
import type { DataQualityExceptions } from "../investments/data-quality-exceptions";
import type { RunLease } from "../scheduled-runs/run-lease";
import type { BlobSourceMessage } from "./blob-source-runs";

/** How often a long run stores its progress (the counts so far) and extends its lease. */
export const PROGRESS_SECONDS = 30;

/** The run's lease was taken over by another instance (this one stalled past it): that one records the outcome. */
class RunTakenOver extends Error {}

export interface RunBlobSourceDeps {
  sources: Pick<SettingsRepository<BlobSource>, "get">;
  feeds: Pick<FeedRepository, "get">;
  lease: RunLease<StoredBlobSourceRun>;
  versions: BlobSourceVersions;
  containers: CustomerContainers;
  clock: Clock;
  log: Logger;
  /** Checked again at each run, so a source saved before a rule cannot read the service's own storage. */
  storage: ServiceStorage;
  /** Where a blob the run cannot copy is reported to a person (its name no store can hold). */
  dataQuality: Pick<DataQualityExceptions, "open">;
}

/**
 * Performs one run: lists the customer's container under the prefix and streams every blob version
 * (name + ETag) that matches the pattern and no earlier run copied into `inbound/<feedId>/...`,
 * where the blob trigger ingests it as a file of the feed (job `source: blob`). Each version is
 * recorded right after its copy; a copy repeated after a crash lands on the same inbound name
 * (refused there) or, once ingested, becomes a duplicate job that writes nothing.
 */
export class RunBlobSource {
  constructor(private readonly deps: RunBlobSourceDeps) {}

  async execute(message: BlobSourceMessage): Promise<StoredBlobSourceRun | undefined> {
    const { lease } = this.deps;
    const taken = await lease.take(message.blobSourceId, message.runId);
    // Finished already, gone, or being performed by another instance: another copy of the message.
    if (taken === undefined) return undefined;
    const run: StoredBlobSourceRun = { ...taken, listed: 0, matched: 0, copied: 0, skipped: 0, files: [] };
    const log = this.deps.log.with({ blobSourceId: run.blobSourceId, runId: run.id });
    try {
      await this.copyNewVersions(run);
      const done = await lease.finish(run, (current) => ({ ...withProgress(current, run), status: "succeeded" }));
      log.info("blob source run succeeded", {
        listed: run.listed,
        matched: run.matched,
        copied: run.copied,
        skipped: run.skipped,
      });
      return done;
    } catch (error) {
      if (error instanceof RunTakenOver) {
        log.warn("blob source run taken over by another instance after its lease ended; that one records the outcome");
        return undefined;
      }
      const reason = messageOf(error);
      const failed = await lease.finish(run, (current) => ({
        ...withProgress(current, run),
        status: "failed",
        error: reason,
      }));
      // The cause goes to the log (not the record), for the operators; the next run continues from what was recorded.
      log.warn("blob source run failed", {
        error: reason,
        cause: error instanceof CustomerContainerError ? undefined : String(error),
      });
      return failed;
    }
  }

  private async copyNewVersions(run: StoredBlobSourceRun): Promise<void> {
    const source = await this.deps.sources.get(run.blobSourceId);
    if (source === undefined) throw new CustomerContainerError("the blob source was deleted");
    if ((await this.deps.feeds.get(source.feedId)) === undefined)
      throw new CustomerContainerError(`the feed '${source.feedId}' no longer exists`);
    const location = parseContainerUrl(source.containerUrl, this.deps.storage);
    if ("problem" in location) throw new CustomerContainerError(`containerUrl ${location.problem}`);
    const matches = compileFilePattern(source.filePattern);
    const origin = { source: "blob", blobsourceid: source.id };
    let savedAt = this.deps.clock.now().getTime();
    const refused: string[] = [];
    for await (const page of this.deps.containers.list(location, source.prefix ?? undefined)) {
      run.listed += page.length;
      const matched = page.filter((b) => matches(baseNameOf(b.name)));
      run.matched += matched.length;
      // A name no store can hold is skipped and reported, never copied to stop ingestion later.
      const matching = await this.withoutUnholdableNames(source, matched);
      const seen = await this.deps.versions.seen(source.id, matching);
      for (const blob of matching) {
        if (seen.has(versionKey(blob))) {
          run.skipped++;
          continue;
        }
        const inboundName = inboundNameOf(source.feedId, source.id, blob.name, blob.etag);
        // Where the copy came from, for whoever looks at it in inbound (metadata values are ASCII: the name is URI-encoded).
        const metadata = { ...origin, sourcename: encodeURIComponent(blob.name), sourceetag: blob.etag };
        let outcome: CopyOutcome;
        try {
          outcome = await this.deps.containers.copyToInbound(location, blob, inboundName, metadata);
        } catch (error) {
          if (!(error instanceof CustomerBlobError)) throw error;
          // Not recorded: the next run tries it again. Meanwhile it holds up none of the others.
          refused.push(error.message);
          this.deps.log.warn("blob source: a blob could not be copied; the others go on", {
            blobSourceId: source.id,
            error: error.message,
          });
          continue;
        }
        if (outcome === "changed") continue; // a newer version is the next run's
        const file = { name: blob.name, etag: blob.etag, inboundName };
        await this.deps.versions.markSeen(source.id, file, run.id, this.deps.clock.now().toISOString());
        // "present": an earlier attempt (or a concurrent run) copied it and had not recorded it yet.
        if (outcome === "present") {
          run.skipped++;
          continue;
        }
        run.copied++;
        if (run.files.length < MAX_RUN_FILES) run.files.push(file);
        if (this.deps.clock.now().getTime() - savedAt >= PROGRESS_SECONDS * 1000) {
          // A long run shows its counts so far in the runs list and extends its lease.
          savedAt = this.deps.clock.now().getTime();
          if ((await this.deps.lease.renew(run, (current) => withProgress(current, run))) === undefined)
            throw new RunTakenOver();
        }
      }
    }
    if (refused.length > 0)
      throw new CustomerContainerError(
        `${refused.length} blob${refused.length === 1 ? "" : "s"} could not be copied (the first, ${printableName(refused[0] ?? "")}); the others were, and the next run tries ${refused.length === 1 ? "it" : "them"} again`,
      );
  }

  /**
   * The blobs whose names ingestion can take; each other one is logged and opened as a data-quality
   * exception on the source (once per version), so a person sees why it was not copied.
   */
  private async withoutUnholdableNames(source: BlobSource, blobs: CustomerBlob[]): Promise<CustomerBlob[]> {
    const refused = blobs.flatMap((b) => {
      const problem = inboundNameProblem(b.name);
      return problem === undefined ? [] : [{ blob: b, problem }];
    });
    if (refused.length === 0) return blobs;
    for (const { blob, problem } of refused)
      this.deps.log.warn("blob source: a blob whose name no store can hold was not copied", {
        blobSourceId: source.id,
        name: printableName(blob.name),
        problem,
      });
    await this.deps.dataQuality.open(
      refused.map(({ blob, problem }) => ({
        key: `blob-source-name:${source.id}:${blob.name}:${blob.etag}`,
        type: "VALIDATION_FAILED",
        severity: "warning",
        message: `blob "${printableName(blob.name)}" of the source's container was not copied: its name ${problem}, which no store can hold; give it another name there`,
        entity: { type: "blobSource", id: source.id },
      })),
      null,
    );
    return blobs.filter((b) => !refused.some((r) => r.blob === b));
  }
}

/** The stored run with this attempt's counts and copied files. */
function withProgress(current: StoredBlobSourceRun, run: StoredBlobSourceRun): StoredBlobSourceRun {
  return {
    ...current,
    listed: run.listed,
    matched: run.matched,
    copied: run.copied,
    skipped: run.skipped,
    files: run.files,
  };
}

function messageOf(error: unknown): string {
  if (error instanceof CustomerContainerError) return error.message;
  return "the run failed unexpectedly; what it copied before stays copied and the next run continues (details in the service log)";
}
