import { BlobDestination } from "../adapters/blob/blob-destination";
import { CosmosExportTargetLocks } from "../adapters/cosmos/cosmos-export-target-locks";
import { CosmosFxRatePages } from "../adapters/cosmos/cosmos-fx-rate-pages";
import { CosmosScheduledRuns, exportRunDocuments } from "../adapters/cosmos/cosmos-scheduled-runs";
import { CosmosSettingsRepository } from "../adapters/cosmos/cosmos-settings-repository";
import { SftpDestination } from "../adapters/sftp/sftp-destination";
import { ExportDataSetsOverReads } from "../app/exports/data-sets";
import { CreateExport } from "../app/exports/create-export";
import { DeleteExport } from "../app/exports/delete-export";
import type { ExportDefinitionDeps } from "../app/exports/export-definition";
import { ExportRunLease } from "../app/exports/export-run-lease";
import { exportRunKind, exportRunSchedule } from "../app/exports/export-runs";
import { GetExport } from "../app/exports/get-export";
import { ListExportRuns } from "../app/exports/list-export-runs";
import { ListExports } from "../app/exports/list-exports";
import { RunExport, type OpenedDestination } from "../app/exports/run-export";
import { RunExportNow } from "../app/exports/run-export-now";
import { ScheduleExports } from "../app/exports/schedule-exports";
import { UpdateExport } from "../app/exports/update-export";
import { RunLease } from "../app/scheduled-runs/run-lease";
import { ScheduledRuns } from "../app/scheduled-runs/scheduled-runs";
import { writeExport } from "../formats/export/write-export";
import { emulatorAccountOf, parseStorageConnectionString } from "../domain/storage-connection-string";
import type { ExportDataSets, ExportRepository, WriteExport } from "../ports/exports";
import { exportAudit } from "../domain/settings-audit-subjects";
import type { CoreServices } from "./core";
import type { InvestmentServices } from "./investments";
import { lazy } from "./lazy";

/** Scheduled exports: definitions (destination secrets sealed at rest), runs, the data sets, the writers and the destinations. */
export class ExportServices {
  constructor(
    private readonly core: CoreServices,
    private readonly investments: InvestmentServices,
  ) {}

  /** Exports' rows: the API's read use cases, page by page. */
  readonly exportDataSets = lazy<ExportDataSets>(() => {
    const i = this.investments;
    return new ExportDataSetsOverReads({
      getPortfolio: i.getPortfolio(),
      listPortfolios: i.listPortfolios(),
      getHoldings: i.getHoldings(),
      positions: i.positionRepository(),
      listTransactions: i.listTransactions(),
      listSecurities: i.listSecurities(),
      prices: i.priceRepository(),
      fxRates: new CosmosFxRatePages(this.core.cosmos().container("fxRates")),
      listExceptions: i.listDataQualityExceptions(),
    });
  });
  /** The CSV, XLSX and JSON writers. */
  readonly writeExport: WriteExport = writeExport;
  readonly exportRepository = lazy<ExportRepository>(
    () =>
      new CosmosSettingsRepository(this.core.cosmos().container("settings"), "export", "Export", {
        writer: this.core.settingsAudit(),
        subject: exportAudit,
      }),
  );
  readonly exportRuns = lazy(() => new CosmosScheduledRuns(this.core.cosmos().container("runs"), exportRunDocuments));
  readonly exportRunKind = lazy(() => exportRunKind(this.core.config.EXPORTS_RUN_LEASE_SECONDS));
  /** Claims due times, sends runs, re-sends lost ones: the mechanism blob sources use too. */
  readonly scheduledRuns = lazy(
    () =>
      new ScheduledRuns({
        owners: this.exportRepository(),
        runs: this.exportRuns(),
        kind: this.exportRunKind(),
        schedule: exportRunSchedule,
        bus: this.core.messageBus(),
        clock: this.core.clock,
        log: this.core.logger("exports"),
      }),
  );
  readonly exportTargets = lazy(() => new CosmosExportTargetLocks(this.core.cosmos().container("runs")));
  readonly destinationRules = lazy(() => ({ storage: this.core.serviceStorage(), hosts: this.core.outboundHosts() }));
  readonly createExport = lazy(() => new CreateExport(this.definitionDeps()));
  readonly listExports = lazy(() => new ListExports({ repository: this.exportRepository() }));
  readonly getExport = lazy(() => new GetExport({ repository: this.exportRepository() }));
  readonly updateExport = lazy(() => new UpdateExport(this.definitionDeps()));
  readonly deleteExport = lazy(() => new DeleteExport({ repository: this.exportRepository() }));
  readonly runExportNow = lazy(
    () => new RunExportNow({ repository: this.exportRepository(), scheduledRuns: this.scheduledRuns() }),
  );
  readonly listExportRuns = lazy(
    () => new ListExportRuns({ repository: this.exportRepository(), runs: this.exportRuns() }),
  );
  readonly scheduleExports = lazy(() => new ScheduleExports({ scheduledRuns: this.scheduledRuns() }));
  private readonly emulatorAccount = lazy(() => {
    const connectionString = this.core.config.STORAGE_CONNECTION_STRING;
    return connectionString === undefined
      ? undefined
      : emulatorAccountOf(parseStorageConnectionString(connectionString));
  });
  /** The adapter uploading to one destination: the customer's SFTP server (through the SSRF guard), or their container (managed identity; the emulator's key when the URL is the emulator's). */
  readonly openDestination = (d: OpenedDestination) => {
    const c = this.core.config;
    if (d.type === "blob")
      return new BlobDestination(d.containerUrl, d.prefix ?? "", this.core.credential(), this.emulatorAccount());
    return new SftpDestination(
      {
        ...d,
        connectTimeoutSeconds: c.EXPORTS_SFTP_CONNECT_TIMEOUT_SECONDS,
        timeoutSeconds: c.EXPORTS_UPLOAD_TIMEOUT_SECONDS,
      },
      this.core.outboundHosts(),
    );
  };
  readonly runExport = lazy(
    () =>
      new RunExport({
        exports: this.exportRepository(),
        lease: new ExportRunLease({
          lease: new RunLease({
            runs: this.exportRuns(),
            kind: this.exportRunKind(),
            bus: this.core.messageBus(),
            clock: this.core.clock,
          }),
          retryDelaySeconds: this.core.config.EXPORTS_RETRY_DELAY_SECONDS,
        }),
        targets: this.exportTargets(),
        dataSets: this.exportDataSets(),
        writeExport: this.writeExport,
        openDestination: this.openDestination,
        destinations: this.destinationRules(),
        cipher: this.core.secretCipher(),
        clock: this.core.clock,
        log: this.core.logger("exports"),
        leaseSeconds: this.core.config.EXPORTS_RUN_LEASE_SECONDS,
      }),
  );

  /** What saving a definition seals its secrets with and checks it against. */
  private definitionDeps(): ExportDefinitionDeps {
    return {
      repository: this.exportRepository(),
      cipher: this.core.secretCipher(),
      clock: this.core.clock,
      destinations: this.destinationRules(),
    };
  }
}
