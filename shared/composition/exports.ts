import { BlobDestination, emulatorAccount } from "../adapters/blob/blob-destination";
import { CosmosExportRuns } from "../adapters/cosmos/cosmos-export-runs";
import { CosmosExportTargetLocks } from "../adapters/cosmos/cosmos-export-target-locks";
import { CosmosFxRatePages } from "../adapters/cosmos/cosmos-fx-rate-pages";
import { CosmosSettingsRepository } from "../adapters/cosmos/cosmos-settings-repository";
import { SftpDestination } from "../adapters/sftp/sftp-destination";
import { ExportDataSetsOverReads } from "../app/exports/data-sets";
import { Exports, type ExportRepository } from "../app/exports/exports";
import { RunExport, type OpenedDestination } from "../app/exports/run-export";
import { ScheduleExports } from "../app/exports/schedule-exports";
import { writeExport } from "../formats/export/write-export";
import type { ExportDataSets, WriteExport } from "../ports/exports";
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
  readonly exportRepository = lazy<ExportRepository>(() => new CosmosSettingsRepository(this.core.cosmos().container("settings"), "export", "Export"));
  readonly exportRuns = lazy(() => new CosmosExportRuns(this.core.cosmos().container("runs")));
  readonly exportTargets = lazy(() => new CosmosExportTargetLocks(this.core.cosmos().container("runs")));
  readonly destinationRules = lazy(() => ({ storage: this.core.serviceStorage(), hosts: this.core.outboundHosts() }));
  readonly exports = lazy(
    () =>
      new Exports({
        repository: this.exportRepository(),
        runs: this.exportRuns(),
        cipher: this.core.secretCipher(),
        bus: this.core.messageBus(),
        clock: this.core.clock,
        leaseSeconds: this.core.config.EXPORTS_RUN_LEASE_SECONDS,
        destinations: this.destinationRules(),
      }),
  );
  readonly scheduleExports = lazy(
    () =>
      new ScheduleExports(
        this.exportRepository(),
        this.exportRuns(),
        this.core.messageBus(),
        this.core.clock,
        this.core.logger("exports"),
        this.core.config.EXPORTS_RUN_LEASE_SECONDS,
      ),
  );
  /** The adapter uploading to one destination: the customer's SFTP server (through the SSRF guard), or their container (managed identity; the emulator's key when the URL is the emulator's). */
  readonly openDestination = (d: OpenedDestination) => {
    const c = this.core.config;
    if (d.type === "blob") return new BlobDestination(d.containerUrl, d.prefix ?? "", this.core.credential(), emulatorAccount(c.STORAGE_CONNECTION_STRING));
    return new SftpDestination({ ...d, connectTimeoutSeconds: c.EXPORTS_SFTP_CONNECT_TIMEOUT_SECONDS, timeoutSeconds: c.EXPORTS_UPLOAD_TIMEOUT_SECONDS }, this.core.outboundHosts());
  };
  readonly runExport = lazy(
    () =>
      new RunExport({
        exports: this.exportRepository(),
        runs: this.exportRuns(),
        targets: this.exportTargets(),
        dataSets: this.exportDataSets(),
        writeExport: this.writeExport,
        openDestination: this.openDestination,
        destinations: this.destinationRules(),
        cipher: this.core.secretCipher(),
        bus: this.core.messageBus(),
        clock: this.core.clock,
        log: this.core.logger("exports"),
        leaseSeconds: this.core.config.EXPORTS_RUN_LEASE_SECONDS,
        retryDelaySeconds: this.core.config.EXPORTS_RETRY_DELAY_SECONDS,
      }),
  );
}
