import { BlobCustomerContainers } from "../adapters/blob/customer-container";
import { CosmosBlobSourceVersions } from "../adapters/cosmos/cosmos-blob-source-versions";
import { blobSourceRunDocuments, CosmosScheduledRuns } from "../adapters/cosmos/cosmos-scheduled-runs";
import { CosmosSettingsRepository } from "../adapters/cosmos/cosmos-settings-repository";
import { blobSourceRunKind, blobSourceRunSchedule } from "../app/blob-sources/blob-source-runs";
import { RunBlobSource } from "../app/blob-sources/run-blob-source";
import { ScheduleBlobSources } from "../app/blob-sources/schedule-blob-sources";
import { BlobSources, type BlobSourceRepository } from "../app/blob-sources/blob-sources";
import { RunLease } from "../app/scheduled-runs/run-lease";
import { ScheduledRuns } from "../app/scheduled-runs/scheduled-runs";
import type { CoreServices } from "./core";
import type { FeedServices } from "./feeds";
import { lazy } from "./lazy";

/** Blob sources: customers' containers read on a schedule (managed identity; the emulator's key locally), copied into inbound. */
export class BlobSourceServices {
  constructor(
    private readonly core: CoreServices,
    private readonly feeds: FeedServices,
  ) {}

  readonly blobSourceRepository = lazy<BlobSourceRepository>(
    () => new CosmosSettingsRepository(this.core.cosmos().container("settings"), "blob-source", "Blob source"),
  );
  readonly blobSourceRuns = lazy(() => new CosmosScheduledRuns(this.core.cosmos().container("runs"), blobSourceRunDocuments));
  readonly blobSourceVersions = lazy(() => new CosmosBlobSourceVersions(this.core.cosmos().container("runs")));
  /** Claims due times, sends runs, re-sends lost ones: the mechanism exports use too. */
  readonly scheduledRuns = lazy(
    () =>
      new ScheduledRuns({
        owners: this.blobSourceRepository(),
        runs: this.blobSourceRuns(),
        kind: blobSourceRunKind,
        schedule: blobSourceRunSchedule,
        bus: this.core.messageBus(),
        clock: this.core.clock,
        log: this.core.logger("blob-sources"),
      }),
  );
  readonly customerContainers = lazy(() =>
    BlobCustomerContainers.forService({ connectionString: this.core.config.STORAGE_CONNECTION_STRING, blobEndpoint: this.core.config.STORAGE_BLOB_ENDPOINT }, this.core.credential),
  );
  readonly blobSources = lazy(
    () =>
      new BlobSources({
        repository: this.blobSourceRepository(),
        feeds: this.feeds.feedRepository(),
        runs: this.blobSourceRuns(),
        scheduledRuns: this.scheduledRuns(),
        clock: this.core.clock,
        storage: this.core.serviceStorage(),
      }),
  );
  readonly runBlobSource = lazy(
    () =>
      new RunBlobSource({
        sources: this.blobSourceRepository(),
        feeds: this.feeds.feedRepository(),
        lease: new RunLease({ runs: this.blobSourceRuns(), kind: blobSourceRunKind, bus: this.core.messageBus(), clock: this.core.clock }),
        versions: this.blobSourceVersions(),
        containers: this.customerContainers(),
        clock: this.core.clock,
        log: this.core.logger("blob-sources"),
        storage: this.core.serviceStorage(),
      }),
  );
  readonly scheduleBlobSources = lazy(() => new ScheduleBlobSources({ scheduledRuns: this.scheduledRuns() }));
}
