import { BlobCustomerContainers } from "../adapters/blob/customer-container";
import { CosmosBlobSourceRuns } from "../adapters/cosmos/cosmos-blob-source-runs";
import { CosmosSettingsRepository } from "../adapters/cosmos/cosmos-settings-repository";
import { RunBlobSource } from "../app/blob-sources/run-blob-source";
import { ScheduleBlobSources } from "../app/blob-sources/schedule-blob-sources";
import { BlobSources, type BlobSourceRepository } from "../app/blob-sources/blob-sources";
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
  readonly blobSourceRuns = lazy(() => new CosmosBlobSourceRuns(this.core.cosmos().container("runs")));
  readonly customerContainers = lazy(() =>
    BlobCustomerContainers.forService({ connectionString: this.core.config.STORAGE_CONNECTION_STRING, blobEndpoint: this.core.config.STORAGE_BLOB_ENDPOINT }, this.core.credential),
  );
  readonly blobSources = lazy(
    () =>
      new BlobSources({
        repository: this.blobSourceRepository(),
        feeds: this.feeds.feedRepository(),
        runs: this.blobSourceRuns(),
        messageBus: this.core.messageBus(),
        clock: this.core.clock,
        storage: this.core.serviceStorage(),
      }),
  );
  readonly runBlobSource = lazy(
    () =>
      new RunBlobSource({
        sources: this.blobSourceRepository(),
        feeds: this.feeds.feedRepository(),
        runs: this.blobSourceRuns(),
        containers: this.customerContainers(),
        clock: this.core.clock,
        log: this.core.logger("blob-sources"),
        storage: this.core.serviceStorage(),
      }),
  );
  readonly scheduleBlobSources = lazy(
    () =>
      new ScheduleBlobSources({
        sources: this.blobSourceRepository(),
        runs: this.blobSourceRuns(),
        enqueue: (run) => this.blobSources().enqueue(run),
        clock: this.core.clock,
        log: this.core.logger("blob-sources"),
      }),
  );
}
