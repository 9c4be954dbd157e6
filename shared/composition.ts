import type { CosmosClient } from "@azure/cosmos";
import { DefaultAzureCredential, type TokenCredential } from "@azure/identity";
import { getConfig, type Config } from "./config";
import { CosmosFxRatePages } from "./adapters/cosmos/cosmos-fx-rate-pages";
import type { ExportDataSets, WriteExport } from "./app/export/contract";
import { ExportDataSetsOverReads } from "./app/export/data-sets";
import { writeExport } from "./formats/export/write-export";
import { CosmosApiClientRepository } from "./adapters/cosmos/cosmos-api-client-repository";
import { CosmosDatabase, createCosmosClient } from "./adapters/cosmos/cosmos-client";
import { CosmosCounterStore } from "./adapters/cosmos/cosmos-counter-store";
import { CosmosIngestAttempts } from "./adapters/cosmos/cosmos-ingest-attempts";
import { CosmosPortfolioRepository } from "./adapters/cosmos/cosmos-portfolio-repository";
import { JoseTokenService } from "./adapters/jwt/jose-token-service";
import { ApiClients } from "./app/api-clients";
import { Authenticator } from "./app/authenticate";
import { IssueToken } from "./app/issue-token";
import { Portfolios } from "./app/portfolios";
import { RateLimiter } from "./app/rate-limiter";
import { systemClock, type Clock } from "./ports/clock";
import { CosmosDataQualityExceptionRepository } from "./adapters/cosmos/cosmos-data-quality-exception-repository";
import { CosmosFxRateRepository } from "./adapters/cosmos/cosmos-fx-rate-repository";
import { CosmosIdempotencyStore } from "./adapters/cosmos/cosmos-idempotency-store";
import { CosmosJobRepository } from "./adapters/cosmos/cosmos-job-repository";
import { CosmosOutbox } from "./adapters/cosmos/cosmos-outbox";
import { CosmosPositionRepository } from "./adapters/cosmos/cosmos-position-repository";
import { CosmosPriceRepository } from "./adapters/cosmos/cosmos-price-repository";
import { CosmosSecurityRepository } from "./adapters/cosmos/cosmos-security-repository";
import { CosmosTransactionRepository } from "./adapters/cosmos/cosmos-transaction-repository";
import { DataQualityExceptions } from "./app/data-quality-exceptions";
import { Holdings } from "./app/holdings";
import { Idempotency } from "./app/idempotency";
import { ImportService } from "./app/import/import-service";
import { JobQueries } from "./app/job-queries";
import { ReapAbandonedJobs } from "./app/reap-jobs";
import { SecurityQueries } from "./app/security-queries";
import { TransactionQueries } from "./app/transaction-queries";
import { ValuationService } from "./app/valuation-service";
import { SweepStaleValuations } from "./app/valuation-queue";
import { ValueStalePortfolios } from "./app/value-stale-portfolios";
import { StorageQueueMessageBus } from "./adapters/queue/storage-queue-bus";
import { ServiceBusMessageBus } from "./adapters/queue/service-bus-bus";
import { EventPublisher } from "./app/event-publisher";
import { RelayOutbox } from "./app/relay-outbox";
import { Logger } from "./logging";
import type { Outbox } from "./ports/outbox";
import type { MessageBus } from "./ports/message-bus";
import type { FeedRepository } from "./ports/feed-repository";
import type { WebhookRepository } from "./ports/webhook-repository";
import { CosmosDeliveryRepository } from "./adapters/cosmos/cosmos-delivery-repository";
import { DeliverWebhooks, type SignWebhook } from "./app/deliver-webhook";
import { SweepDeliveries } from "./app/deliveries-sweep";
import { DeliveryLog } from "./app/delivery-log";
import { FanOutEvents } from "./app/fan-out";
import type { WebhookDirectory, WebhookSender } from "./ports/webhook-delivery";
import { CosmosSettingsRepository } from "./adapters/cosmos/cosmos-settings-repository";
import { GuardedWebhookSender } from "./adapters/http/guarded-webhook-sender";
import { CachedWebhookDirectory } from "./app/webhook-directory";
import { Webhooks } from "./app/webhooks";
import { WebhookSecretCipher } from "./domain/webhook-secret-cipher";
import { signWebhook } from "./domain/webhook-signature";
import { Feeds } from "./app/feeds";
import { BlobFileStore } from "./adapters/blob/blob-file-store";
import { AzureSftpLogins } from "./adapters/arm/azure-sftp-logins";
import { LocalSftpLogins } from "./adapters/local-sftp-logins";
import type { SftpLogins } from "./ports/sftp-logins";
import { IngestFile } from "./app/ingest-file";
import { BlobCustomerContainers } from "./adapters/blob/customer-container";
import { CosmosBlobSourceRuns } from "./adapters/cosmos/cosmos-blob-source-runs";
import { RunBlobSource } from "./app/blob-source-runner";
import { ScheduleBlobSources } from "./app/blob-source-scheduler";
import { BlobSources, type BlobSourceRepository } from "./app/blob-sources";
import { serviceStorageOf } from "./domain/service-storage";
import { Exports, type ExportRepository } from "./app/exports";
import { ScheduleExports } from "./app/schedule-exports";
import { RunExport, type OpenedDestination } from "./app/run-export";
import { BlobDestination, emulatorAccount } from "./adapters/blob/blob-destination";
import { SftpDestination } from "./adapters/sftp/sftp-destination";
import { CosmosExportRuns } from "./adapters/cosmos/cosmos-export-runs";
import { CosmosExportTargetLocks } from "./adapters/cosmos/cosmos-export-target-locks";
import { OutboundHostGuard } from "./adapters/http/outbound-host-guard";
import { ReplicaComposition } from "./composition/replica";

function lazy<T>(build: () => T): () => T {
  let value: T | undefined;
  return () => (value ??= build());
}

/**
 * Runs `task` at most once successfully: concurrent callers share the attempt in flight, and a failed
 * attempt is forgotten so the next caller tries again (a Cosmos blip at start-up must not leave the
 * instance without its bootstrap client until it restarts).
 */
export function onceUntilSuccess(task: () => Promise<void>): () => Promise<void> {
  let attempt: Promise<void> | undefined;
  let done = false;
  return () => {
    if (done) return Promise.resolve();
    attempt ??= task().then(
      () => {
        done = true;
      },
      (error: unknown) => {
        attempt = undefined;
        throw error;
      },
    );
    return attempt;
  };
}

/** Builds every adapter and use case from config, once, on first use. */
export class Composition {
  constructor(
    readonly config: Config,
    readonly clock: Clock = systemClock,
  ) {}

  readonly credential = lazy<TokenCredential>(() => new DefaultAzureCredential());
  readonly cosmosClient = lazy<CosmosClient>(() => createCosmosClient(this.config, this.credential));
  readonly cosmos = lazy(() => new CosmosDatabase(this.cosmosClient(), this.config.COSMOS_DATABASE));

  /** The queues of the asynchronous flows (events, valuations, deliveries). */
  readonly messageBus = lazy<MessageBus>(() => {
    const c = this.config;
    if (c.MESSAGE_BUS === "service-bus") {
      if (c.SERVICEBUS_CONNECTION_STRING !== undefined) return ServiceBusMessageBus.fromConnectionString(c.SERVICEBUS_CONNECTION_STRING);
      if (c.SERVICEBUS_NAMESPACE !== undefined) return ServiceBusMessageBus.fromNamespace(c.SERVICEBUS_NAMESPACE, this.credential());
      throw new Error("MESSAGE_BUS=service-bus needs SERVICEBUS_CONNECTION_STRING or SERVICEBUS_NAMESPACE");
    }
    if (c.STORAGE_CONNECTION_STRING !== undefined) return StorageQueueMessageBus.fromConnectionString(c.STORAGE_CONNECTION_STRING);
    if (c.STORAGE_QUEUE_ENDPOINT !== undefined) return StorageQueueMessageBus.fromEndpoint(c.STORAGE_QUEUE_ENDPOINT, this.credential());
    throw new Error("MESSAGE_BUS=storage-queue needs STORAGE_CONNECTION_STRING or STORAGE_QUEUE_ENDPOINT");
  });

  readonly apiClientRepository = lazy(() => new CosmosApiClientRepository(this.cosmos().container("settings")));
  readonly portfolioRepository = lazy(() => new CosmosPortfolioRepository(this.cosmos().container("portfolios")));
  readonly counterStore = lazy(() => new CosmosCounterStore(this.cosmos().container("counters")));

  readonly tokenService = lazy(() => {
    const c = this.config;
    return new JoseTokenService(
      {
        issuer: c.JWT_ISSUER,
        audience: c.JWT_AUDIENCE,
        current: { kid: c.JWT_KEY_ID, secret: Buffer.from(c.JWT_SIGNING_KEY, "base64") },
        ...(c.JWT_PREVIOUS_SIGNING_KEY !== undefined && c.JWT_PREVIOUS_KEY_ID !== undefined
          ? { previous: { kid: c.JWT_PREVIOUS_KEY_ID, secret: Buffer.from(c.JWT_PREVIOUS_SIGNING_KEY, "base64") } }
          : {}),
      },
      () => Math.floor(this.clock.now().getTime() / 1000),
    );
  });

  readonly authenticator = lazy(
    () => new Authenticator(this.tokenService(), this.apiClientRepository(), this.clock, this.config.AUTH_CLIENT_CACHE_SECONDS),
  );
  readonly rateLimiter = lazy(() => {
    const c = this.config;
    return new RateLimiter(
      {
        standard: { perMinute: c.RATE_LIMIT_STANDARD_PER_MINUTE, perDay: c.RATE_LIMIT_STANDARD_PER_DAY },
        premium: { perMinute: c.RATE_LIMIT_PREMIUM_PER_MINUTE, perDay: c.RATE_LIMIT_PREMIUM_PER_DAY },
        anonymous: { perMinute: c.RATE_LIMIT_ANONYMOUS_PER_MINUTE, perDay: c.RATE_LIMIT_ANONYMOUS_PER_DAY },
      },
      this.counterStore(),
      this.clock,
    );
  });
  /**
   * Ensures the configured bootstrap client (BOOTSTRAP_CLIENT_ID/SECRET, a Key Vault reference in Azure)
   * once per instance, lazily before the first token request: the same path in Azure and in the local
   * runtime, with no start-up hook that could fail the whole app or be skipped by a host.
   */
  readonly ensureBootstrap = lazy(() =>
    onceUntilSuccess(async () => {
      const { BOOTSTRAP_CLIENT_ID: id, BOOTSTRAP_CLIENT_SECRET: secret } = this.config;
      if (id !== undefined && secret !== undefined) await this.apiClients().ensureBootstrap(id, secret);
    }),
  );
  readonly issueToken = lazy(() => new IssueToken(this.apiClientRepository(), this.tokenService(), this.ensureBootstrap()));
  readonly apiClients = lazy(
    () => new ApiClients(this.apiClientRepository(), this.clock, (id) => this.authenticator().forget(id)),
  );
  readonly portfolios = lazy(
    () =>
      new Portfolios(this.portfolioRepository(), this.clock, {
        valueNewComposite: (composite) => this.valueStalePortfolios().markNewComposite(composite),
      }),
  );

  readonly securityRepository = lazy(() => new CosmosSecurityRepository(this.cosmos().container("securities")));
  readonly priceRepository = lazy(() => new CosmosPriceRepository(this.cosmos().container("prices")));
  readonly fxRateRepository = lazy(() => new CosmosFxRateRepository(this.cosmos().container("fxRates")));
  readonly positionRepository = lazy(() => new CosmosPositionRepository(this.cosmos().container("positions")));
  readonly transactionRepository = lazy(() => new CosmosTransactionRepository(this.cosmos().container("transactions")));
  readonly jobRepository = lazy(() => new CosmosJobRepository(this.cosmos().container("jobs")));
  readonly dataQualityExceptionRepository = lazy(() => new CosmosDataQualityExceptionRepository(this.cosmos().container("exceptions")));
  readonly outboxStore = lazy(() => new CosmosOutbox(this.cosmos().container("events"), this.clock));
  /** The outbox the use cases append to: it stores the events, then publishes them to the `events` queue. */
  readonly outbox = lazy<Outbox>(() => new EventPublisher(this.outboxStore(), () => this.messageBus(), new Logger(this.config.LOG_LEVEL).with({ component: "event-publisher" })));
  readonly relayOutbox = lazy(
    () => new RelayOutbox(this.outboxStore(), this.messageBus(), this.clock, { graceSeconds: this.config.OUTBOX_RELAY_GRACE_SECONDS, batchSize: 100, maxBatches: 20 }),
  );
  readonly idempotencyStore = lazy(() => new CosmosIdempotencyStore(this.cosmos().container("counters")));

  readonly dataQualityExceptions = lazy(() => new DataQualityExceptions(this.dataQualityExceptionRepository(), this.outbox(), this.clock));
  readonly valuation = lazy(
    () =>
      new ValuationService(
        this.portfolioRepository(),
        this.positionRepository(),
        this.securityRepository(),
        this.priceRepository(),
        this.fxRateRepository(),
        this.outbox(),
        this.dataQualityExceptions(),
        this.clock,
        { pricePreference: this.config.VALUATION_PRICE_PREFERENCE, staleAfterDays: this.config.STALE_PRICE_DAYS },
      ),
  );
  readonly imports = lazy(
    () =>
      new ImportService({
        portfolios: this.portfolioRepository(),
        securities: this.securityRepository(),
        prices: this.priceRepository(),
        fxRates: this.fxRateRepository(),
        positions: this.positionRepository(),
        transactions: this.transactionRepository(),
        jobs: this.jobRepository(),
        outbox: this.outbox(),
        dataQuality: this.dataQualityExceptions(),
        messageBus: this.messageBus(),
        valuationDelaySeconds: this.config.VALUATION_DELAY_SECONDS,
        clock: this.clock,
        priceJumpThreshold: this.config.PRICE_JUMP_THRESHOLD,
      }),
  );
  readonly valueStalePortfolios = lazy(
    () => new ValueStalePortfolios(this.portfolioRepository(), this.positionRepository(), this.jobRepository(), this.valuation(), this.messageBus(), this.clock),
  );
  readonly sweepStaleValuations = lazy(() => new SweepStaleValuations(this.positionRepository(), this.portfolioRepository(), this.messageBus(), this.clock, this.config.VALUATION_SWEEP_AGE_SECONDS));
  readonly reapJobs = lazy(() => new ReapAbandonedJobs(this.jobRepository(), this.outbox(), this.clock));
  readonly idempotency = lazy(() => new Idempotency(this.idempotencyStore(), this.clock));
  readonly securityQueries = lazy(() => new SecurityQueries(this.securityRepository(), this.priceRepository()));
  readonly transactionQueries = lazy(() => new TransactionQueries(this.transactionRepository()));
  readonly jobQueries = lazy(() => new JobQueries(this.jobRepository()));
  // Webhook deliveries: fan-out of events, attempts with retries, the sweep and the delivery log.
  /** The settings side of webhooks the deliveries use: the directory, the guarded sender and the signer. */
  readonly deliveryPorts = lazy<{ directory: WebhookDirectory; sender: WebhookSender; sign: SignWebhook }>(() => ({
    directory: this.webhookDirectory(),
    sender: this.webhookSender(),
    sign: signWebhook,
  }));
  // Webhook settings: the webhooks (secrets sealed with WEBHOOK_SECRET_KEY), the SSRF-guarded sender, the cached directory.
  readonly webhookSecretCipher = lazy(() => new WebhookSecretCipher(this.config.WEBHOOK_SECRET_KEY));
  readonly webhookRepository = lazy<WebhookRepository>(() => new CosmosSettingsRepository(this.cosmos().container("settings"), "webhook", "Webhook"));
  readonly webhookSender = lazy(() => new GuardedWebhookSender({ allowPrivateNetworks: this.config.WEBHOOK_ALLOW_PRIVATE_NETWORKS }));
  readonly webhookDirectory = lazy(() => new CachedWebhookDirectory(this.webhookRepository(), this.webhookSecretCipher(), this.clock, this.config.AUTH_CLIENT_CACHE_SECONDS));
  readonly webhooks = lazy(
    () => new Webhooks(this.webhookRepository(), this.webhookSender(), this.webhookSecretCipher(), this.clock, () => this.webhookDirectory().forget()),
  );
  readonly deliveryRepository = lazy(() => new CosmosDeliveryRepository(this.cosmos().container("deliveries")));
  readonly fanOutEvents = lazy(() => new FanOutEvents(this.deliveryRepository(), this.deliveryPorts().directory, this.deliverWebhooks(), this.clock));
  readonly deliverWebhooks = lazy(() => {
    const { directory, sender, sign } = this.deliveryPorts();
    return new DeliverWebhooks(this.deliveryRepository(), directory, sender, sign, this.messageBus(), this.clock, { retrySchedule: this.config.WEBHOOK_RETRY_SCHEDULE });
  });
  readonly sweepDeliveries = lazy(() => new SweepDeliveries(this.deliveryRepository(), this.messageBus(), this.clock, this.config.DELIVERIES_SWEEP_GRACE_SECONDS));
  readonly deliveryLog = lazy(() => new DeliveryLog(this.deliveryRepository(), this.deliveryPorts().directory, this.deliverWebhooks(), this.messageBus(), this.clock));
  // Feeds (file ingestion set-up): definitions and SFTP logins in the settings container.
  readonly feedRepository = lazy<FeedRepository>(() => new CosmosSettingsRepository(this.cosmos().container("settings"), "feed", "Feed"));
  /** The feeds' SFTP logins: the local drop's (hashes with the feed) or the storage account's local users (ARM, managed identity). */
  readonly sftpLogins = lazy<SftpLogins>(() => {
    const c = this.config;
    const endpoint = { host: c.SFTP_HOST, port: c.SFTP_PORT };
    if (c.SFTP_LOGINS === "local") return new LocalSftpLogins(endpoint);
    if (c.STORAGE_ACCOUNT_RESOURCE_ID === undefined) throw new Error("SFTP_LOGINS=azure needs STORAGE_ACCOUNT_RESOURCE_ID");
    return new AzureSftpLogins(this.credential(), c.STORAGE_ACCOUNT_RESOURCE_ID, endpoint, this.fileStore(), new Logger(c.LOG_LEVEL).with({ component: "sftp-logins" }));
  });
  readonly feeds = lazy(
    () =>
      new Feeds({
        repository: this.feedRepository(),
        logins: this.sftpLogins(),
        inbound: this.fileStore(),
        dryRunConcurrency: this.config.FEED_DRY_RUN_CONCURRENCY,
        clock: this.clock,
        log: new Logger(this.config.LOG_LEVEL).with({ component: "feeds" }),
      }),
  );
  /** Files in the blob containers (inbound, archive, quarantine). */
  readonly fileStore = lazy(() => {
    const c = this.config;
    if (c.STORAGE_CONNECTION_STRING !== undefined) return BlobFileStore.fromConnectionString(c.STORAGE_CONNECTION_STRING);
    if (c.STORAGE_BLOB_ENDPOINT !== undefined) return BlobFileStore.fromEndpoint(c.STORAGE_BLOB_ENDPOINT, this.credential());
    throw new Error("file ingestion needs STORAGE_CONNECTION_STRING or STORAGE_BLOB_ENDPOINT");
  });
  readonly ingestFile = lazy(
    () =>
      new IngestFile({
        feeds: this.feedRepository(),
        files: this.fileStore(),
        jobs: this.jobRepository(),
        outbox: this.outbox(),
        dataQuality: this.dataQualityExceptions(),
        importer: this.imports(),
        attempts: new CosmosIngestAttempts(this.cosmos().container("counters")),
        clock: this.clock,
        log: new Logger(this.config.LOG_LEVEL).with({ component: "ingest-file" }),
        unlabelledSource: this.config.SFTP_LOGINS === "azure" ? "sftp" : "blob",
      }),
  );
  readonly holdings = lazy(() => new Holdings(this.portfolioRepository(), this.positionRepository(), this.securityRepository(), this.fxRateRepository()));
  // Blob sources: customers' containers read on a schedule (managed identity; the emulator's key locally), copied into inbound.
  readonly blobSourceRepository = lazy<BlobSourceRepository>(() => new CosmosSettingsRepository(this.cosmos().container("settings"), "blob-source", "Blob source"));
  readonly blobSourceRuns = lazy(() => new CosmosBlobSourceRuns(this.cosmos().container("runs")));
  /** The service's own storage (never a customer's container) and, when it runs on the emulator, the emulator's blob endpoint (other containers of it may be named). */
  readonly serviceStorage = lazy(() =>
    serviceStorageOf({
      connectionString: this.config.STORAGE_CONNECTION_STRING,
      blobEndpoint: this.config.STORAGE_BLOB_ENDPOINT,
      accountResourceId: this.config.STORAGE_ACCOUNT_RESOURCE_ID,
      hostAccountName: this.config.AzureWebJobsStorage__accountName,
    }),
  );
  readonly customerContainers = lazy(() =>
    BlobCustomerContainers.forService({ connectionString: this.config.STORAGE_CONNECTION_STRING, blobEndpoint: this.config.STORAGE_BLOB_ENDPOINT }, this.credential),
  );
  readonly blobSources = lazy(
    () =>
      new BlobSources({
        repository: this.blobSourceRepository(),
        feeds: this.feedRepository(),
        runs: this.blobSourceRuns(),
        messageBus: this.messageBus(),
        clock: this.clock,
        storage: this.serviceStorage(),
      }),
  );
  readonly runBlobSource = lazy(
    () =>
      new RunBlobSource({
        sources: this.blobSourceRepository(),
        feeds: this.feedRepository(),
        runs: this.blobSourceRuns(),
        containers: this.customerContainers(),
        clock: this.clock,
        log: new Logger(this.config.LOG_LEVEL).with({ component: "blob-sources" }),
        storage: this.serviceStorage(),
      }),
  );
  readonly scheduleBlobSources = lazy(
    () =>
      new ScheduleBlobSources({
        sources: this.blobSourceRepository(),
        runs: this.blobSourceRuns(),
        enqueue: (run) => this.blobSources().enqueue(run),
        clock: this.clock,
        log: new Logger(this.config.LOG_LEVEL).with({ component: "blob-sources" }),
      }),
  );
  /** Exports' rows (the API's read use cases, page by page) and the CSV, XLSX and JSON writers. */
  readonly exportDataSets = lazy<ExportDataSets>(
    () =>
      new ExportDataSetsOverReads({
        portfolios: this.portfolios(),
        holdings: this.holdings(),
        positions: this.positionRepository(),
        transactions: this.transactionQueries(),
        securities: this.securityQueries(),
        prices: this.priceRepository(),
        fxRates: new CosmosFxRatePages(this.cosmos().container("fxRates")),
        exceptions: this.dataQualityExceptions(),
      }),
  );
  readonly writeExport: WriteExport = writeExport;
  // Scheduled exports: definitions in settings (destination secrets sealed with the webhook cipher's key), runs in the runs container.
  readonly exportRepository = lazy<ExportRepository>(() => new CosmosSettingsRepository(this.cosmos().container("settings"), "export", "Export"));
  readonly exportRuns = lazy(() => new CosmosExportRuns(this.cosmos().container("runs")));
  readonly exportTargets = lazy(() => new CosmosExportTargetLocks(this.cosmos().container("runs")));
  /** The SSRF guard for export SFTP hosts: the webhooks' address rules and setting. */
  readonly outboundHosts = lazy(() => new OutboundHostGuard({ allowPrivateNetworks: this.config.WEBHOOK_ALLOW_PRIVATE_NETWORKS }));
  readonly exportDestinationRules = lazy(() => ({ storage: this.serviceStorage(), hosts: this.outboundHosts() }));
  readonly exports = lazy(
    () =>
      new Exports({
        repository: this.exportRepository(),
        runs: this.exportRuns(),
        cipher: this.webhookSecretCipher(),
        bus: this.messageBus(),
        clock: this.clock,
        leaseSeconds: this.config.EXPORTS_RUN_LEASE_SECONDS,
        destinations: this.exportDestinationRules(),
      }),
  );
  readonly scheduleExports = lazy(
    () =>
      new ScheduleExports(
        this.exportRepository(),
        this.exportRuns(),
        this.messageBus(),
        this.clock,
        new Logger(this.config.LOG_LEVEL).with({ component: "exports" }),
        this.config.EXPORTS_RUN_LEASE_SECONDS,
      ),
  );
  /** The adapter uploading to one export destination: the customer's SFTP server (through the SSRF guard), or their container (managed identity; the emulator's key when the URL is the emulator's). */
  readonly openExportDestination = (d: OpenedDestination) => {
    const c = this.config;
    if (d.type === "blob") return new BlobDestination(d.containerUrl, d.prefix ?? "", this.credential(), emulatorAccount(c.STORAGE_CONNECTION_STRING));
    return new SftpDestination({ ...d, connectTimeoutSeconds: c.EXPORTS_SFTP_CONNECT_TIMEOUT_SECONDS, timeoutSeconds: c.EXPORTS_UPLOAD_TIMEOUT_SECONDS }, this.outboundHosts());
  };
  /** The read-only SQL replica (shared/composition/replica.ts). */
  readonly replica = lazy(() => new ReplicaComposition(this));
  readonly runExport = lazy(
    () =>
      new RunExport({
        exports: this.exportRepository(),
        runs: this.exportRuns(),
        targets: this.exportTargets(),
        dataSets: this.exportDataSets(),
        writeExport: this.writeExport,
        openDestination: this.openExportDestination,
        destinations: this.exportDestinationRules(),
        cipher: this.webhookSecretCipher(),
        bus: this.messageBus(),
        clock: this.clock,
        log: new Logger(this.config.LOG_LEVEL).with({ component: "exports" }),
        leaseSeconds: this.config.EXPORTS_RUN_LEASE_SECONDS,
        retryDelaySeconds: this.config.EXPORTS_RETRY_DELAY_SECONDS,
      }),
  );
}

let current: Composition | undefined;

/** The process-wide composition root. */
export function services(): Composition {
  current ??= new Composition(getConfig());
  return current;
}
