import { BlobCustomerContainers } from "../adapters/blob/blob-customer-containers";
import { CosmosBlobSourceVersions } from "../adapters/cosmos/cosmos-blob-source-versions";
import { blobSourceRunDocuments, CosmosScheduledRuns } from "../adapters/cosmos/cosmos-scheduled-runs";
import { CosmosSettingsRepository } from "../adapters/cosmos/cosmos-settings-repository";
import type { BlobSourceDefinitionDeps } from "../app/blob-sources/blob-source-rules";
import { blobSourceRunKind, blobSourceRunSchedule } from "../app/blob-sources/blob-source-runs";
import { CreateBlobSource } from "../app/blob-sources/create-blob-source";
import { DeleteBlobSource } from "../app/blob-sources/delete-blob-source";
import { GetBlobSource } from "../app/blob-sources/get-blob-source";
import { ListBlobSourceRuns } from "../app/blob-sources/list-blob-source-runs";
import { ListBlobSources } from "../app/blob-sources/list-blob-sources";
import { RunBlobSource } from "../app/blob-sources/run-blob-source";
import { RunBlobSourceNow } from "../app/blob-sources/run-blob-source-now";
import { ScheduleBlobSources } from "../app/blob-sources/schedule-blob-sources";
import { UpdateBlobSource } from "../app/blob-sources/update-blob-source";
import { RunLease } from "../app/scheduled-runs/run-lease";
import { ScheduledRuns } from "../app/scheduled-runs/scheduled-runs";
import type { BlobSourceRepository } from "../ports/blob-sources";
import { blobSourceAudit } from "../domain/settings-audit-subjects";
import type { CoreServices } from "./core";
import type { FeedServices } from "./feeds";
import type { InvestmentServices } from "./investments";
import { lazy } from "./lazy";

/** Blob sources: customers' containers read on a schedule (managed identity; the emulator's key locally), copied into inbound. */
export class BlobSourceServices {
  constructor(
    private readonly core: CoreServices,
    private readonly feeds: FeedServices,
    private readonly investments: InvestmentServices,
  ) {}

  readonly blobSourceRepository = lazy<BlobSourceRepository>(
    () =>
      new CosmosSettingsRepository(this.core.cosmos().container("settings"), "blob-source", "Blob source", {
        writer: this.core.settingsAudit(),
        subject: blobSourceAudit,
      }),
  );
  readonly blobSourceRuns = lazy(
    () => new CosmosScheduledRuns(this.core.cosmos().container("runs"), blobSourceRunDocuments),
  );
  readonly blobSourceVersions = lazy(() => new CosmosBlobSourceVersions(this.core.cosmos().container("runs")));
  readonly customerContainers = lazy(() =>
    BlobCustomerContainers.forService(
      {
        connectionString: this.core.config.STORAGE_CONNECTION_STRING,
        blobEndpoint: this.core.config.STORAGE_BLOB_ENDPOINT,
      },
      this.core.credential,
    ),
  );
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
  readonly createBlobSource = lazy(() => new CreateBlobSource(this.definitionDeps()));
  readonly listBlobSources = lazy(() => new ListBlobSources({ repository: this.blobSourceRepository() }));
  readonly getBlobSource = lazy(() => new GetBlobSource({ repository: this.blobSourceRepository() }));
  readonly updateBlobSource = lazy(() => new UpdateBlobSource(this.definitionDeps()));
  readonly deleteBlobSource = lazy(() => new DeleteBlobSource({ repository: this.blobSourceRepository() }));
  readonly runBlobSourceNow = lazy(
    () => new RunBlobSourceNow({ repository: this.blobSourceRepository(), scheduledRuns: this.scheduledRuns() }),
  );
  readonly listBlobSourceRuns = lazy(
    () => new ListBlobSourceRuns({ repository: this.blobSourceRepository(), runs: this.blobSourceRuns() }),
  );
  readonly runBlobSource = lazy(
    () =>
      new RunBlobSource({
        sources: this.blobSourceRepository(),
        feeds: this.feeds.feedRepository(),
        lease: new RunLease({
          runs: this.blobSourceRuns(),
          kind: blobSourceRunKind,
          bus: this.core.messageBus(),
          clock: this.core.clock,
        }),
        versions: this.blobSourceVersions(),
        containers: this.customerContainers(),
        clock: this.core.clock,
        log: this.core.logger("blob-sources"),
        storage: this.core.serviceStorage(),
        dataQuality: this.investments.dataQualityExceptions(),
      }),
  );
  readonly scheduleBlobSources = lazy(() => new ScheduleBlobSources({ scheduledRuns: this.scheduledRuns() }));

  /** What creating and changing a source check it against. */
  private definitionDeps(): BlobSourceDefinitionDeps {
    return {
      repository: this.blobSourceRepository(),
      feeds: this.feeds.feedRepository(),
      clock: this.core.clock,
      storage: this.core.serviceStorage(),
    };
  }
}
