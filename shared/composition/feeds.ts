import { AzureSftpLogins } from "../adapters/arm/azure-sftp-logins";
import { CosmosIngestAttempts } from "../adapters/cosmos/cosmos-ingest-attempts";
import { CosmosSettingsRepository } from "../adapters/cosmos/cosmos-settings-repository";
import { LocalSftpLogins } from "../adapters/sftp/local-sftp-logins";
import { CreateFeed } from "../app/feeds/create-feed";
import { DeleteFeed } from "../app/feeds/delete-feed";
import { DryRunFeed } from "../app/feeds/dry-run-feed";
import { GetFeed } from "../app/feeds/get-feed";
import { IngestFile } from "../app/feeds/ingest-file";
import { GetJobFile } from "../app/feeds/job-file";
import { ReprocessJob } from "../app/feeds/reprocess-job";
import { ListFeeds } from "../app/feeds/list-feeds";
import { RotateFeedCredentials } from "../app/feeds/rotate-feed-credentials";
import type { FeedsDeps } from "../app/feeds/stored-feeds";
import { UpdateFeed } from "../app/feeds/update-feed";
import { Slots } from "../domain/concurrency";
import { feedFileReaders } from "../formats/feed-file-readers";
import type { FeedRepository } from "../ports/feed-repository";
import type { SftpLogins } from "../ports/sftp-logins";
import { feedAudit } from "../domain/settings-audit-subjects";
import type { CoreServices } from "./core";
import type { InvestmentServices } from "./investments";
import { lazy } from "./lazy";

/** Feeds: the definitions of providers' files, their SFTP logins, the dry run, and the ingestion of delivered files. */
export class FeedServices {
  constructor(
    private readonly core: CoreServices,
    private readonly investments: InvestmentServices,
  ) {}

  readonly feedRepository = lazy<FeedRepository>(
    () =>
      new CosmosSettingsRepository(this.core.cosmos().container("settings"), "feed", "Feed", {
        writer: this.core.settingsAudit(),
        subject: feedAudit({ host: this.core.config.SFTP_HOST, port: this.core.config.SFTP_PORT }),
      }),
  );
  /** The feeds' SFTP logins: the local drop's (hashes with the feed) or the storage account's local users (ARM, managed identity). */
  readonly sftpLogins = lazy<SftpLogins>(() => {
    const c = this.core.config;
    const endpoint = { host: c.SFTP_HOST, port: c.SFTP_PORT };
    if (c.SFTP_LOGINS === "local") return new LocalSftpLogins(endpoint);
    if (c.STORAGE_ACCOUNT_RESOURCE_ID === undefined)
      throw new Error("SFTP_LOGINS=azure needs STORAGE_ACCOUNT_RESOURCE_ID");
    return new AzureSftpLogins(
      this.core.credential(),
      c.STORAGE_ACCOUNT_RESOURCE_ID,
      endpoint,
      this.core.fileStore(),
      this.core.logger("sftp-logins"),
    );
  });
  /** What the feed settings use cases share: the stored feeds, their logins, the clock. */
  private readonly settings = lazy((): FeedsDeps => ({
    repository: this.feedRepository(),
    logins: this.sftpLogins(),
    clock: this.core.clock,
    jobs: this.investments.jobRepository(),
  }));
  readonly createFeed = lazy(() => new CreateFeed(this.settings()));
  readonly listFeeds = lazy(() => new ListFeeds(this.settings()));
  readonly getFeed = lazy(() => new GetFeed(this.settings()));
  readonly updateFeed = lazy(
    () =>
      new UpdateFeed({
        ...this.settings(),
        inbound: this.core.fileStore(),
        bus: this.core.messageBus(),
        log: this.core.logger("feeds"),
      }),
  );
  readonly deleteFeed = lazy(() => new DeleteFeed(this.settings()));
  readonly rotateFeedCredentials = lazy(() => new RotateFeedCredentials(this.settings()));
  /** The dry runs parsing at once on this instance: one count, whatever builds a dry run. */
  readonly dryRunSlots = lazy(() => new Slots(this.core.config.FEED_DRY_RUN_CONCURRENCY));
  readonly dryRunFeed = lazy(
    () => new DryRunFeed({ repository: this.feedRepository(), readers: feedFileReaders, slots: this.dryRunSlots() }),
  );
  readonly ingestFile = lazy(
    () =>
      new IngestFile({
        feeds: this.feedRepository(),
        files: this.core.fileStore(),
        readers: feedFileReaders,
        jobs: this.investments.jobRepository(),
        outbox: this.core.outbox(),
        dataQuality: this.investments.dataQualityExceptions(),
        importer: this.investments.importRecords(),
        attempts: new CosmosIngestAttempts(this.core.cosmos().container("counters")),
        clock: this.core.clock,
        log: this.core.logger("ingest-file"),
        unlabelledSource: this.core.config.SFTP_LOGINS === "azure" ? "sftp" : "blob",
        batchSize: this.core.config.FEED_IMPORT_BATCH_ROWS,
      }),
  );
  /** A feed job's file, and processing a failed job's file again. */
  readonly getJobFile = lazy(
    () => new GetJobFile({ jobs: this.investments.jobRepository(), files: this.core.fileStore() }),
  );
  readonly reprocessJob = lazy(
    () =>
      new ReprocessJob({
        jobs: this.investments.jobRepository(),
        files: this.core.fileStore(),
        feeds: this.feedRepository(),
        clock: this.core.clock,
      }),
  );
}
