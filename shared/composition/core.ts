import type { CosmosClient } from "@azure/cosmos";
import type * as Identity from "@azure/identity";
import type { TokenCredential } from "@azure/identity";
import { BlobFileStore } from "../adapters/blob/blob-file-store";
import { CosmosDatabase, createCosmosClient } from "../adapters/cosmos/cosmos-client";
import { CosmosOutbox } from "../adapters/cosmos/cosmos-outbox";
import { PendingAuditWriter } from "../adapters/cosmos/settings-audit/pending-audit";
import { OutboundHostGuard } from "../adapters/http/outbound-host-guard";
import { ServiceBusMessageBus } from "../adapters/queue/service-bus-bus";
import { StorageQueueMessageBus } from "../adapters/queue/storage-queue-bus";
import { EventPublisher } from "../app/events/event-publisher";
import { RelayOutbox } from "../app/events/relay-outbox";
import { SweepFanOut } from "../app/events/sweep-fan-out";
import type { Config } from "../config";
import { serviceStorageOf } from "../domain/service-storage";
import { WebhookSecretCipher } from "../domain/webhook-secret-cipher";
import { Logger } from "../logging";
import type { Clock } from "../ports/clock";
import type { MessageBus } from "../ports/message-bus";
import type { Outbox } from "../ports/outbox";
import { lazy } from "./lazy";

/** What every feature uses: config, clock, the one credential, the Cosmos database, the queues, blob files, the outbox. */
export class CoreServices {
  constructor(
    readonly config: Config,
    readonly clock: Clock,
  ) {}

  /** The structured logger of one component. */
  logger(component: string): Logger {
    return new Logger(this.config.LOG_LEVEL).with({ component });
  }

  /**
   * The managed identity. @azure/identity is loaded on first use, not when the service starts: a run on
   * connection strings (the local runtime) never uses it, and its modules cost about half a second of
   * every start.
   */
  readonly credential = lazy<TokenCredential>(() => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only when a managed identity is used
    const { DefaultAzureCredential } = require("@azure/identity") as typeof Identity;
    return new DefaultAzureCredential();
  });
  readonly cosmosClient = lazy<CosmosClient>(() => createCosmosClient(this.config, this.credential));
  readonly cosmos = lazy(() => new CosmosDatabase(this.cosmosClient(), this.config.COSMOS_DATABASE));

  /** The queues of the asynchronous flows (events, valuations, deliveries, exports, blob sources). */
  readonly messageBus = lazy<MessageBus>(() => {
    const c = this.config;
    if (c.MESSAGE_BUS === "service-bus") {
      if (c.SERVICEBUS_CONNECTION_STRING !== undefined)
        return ServiceBusMessageBus.fromConnectionString(c.SERVICEBUS_CONNECTION_STRING);
      if (c.SERVICEBUS_NAMESPACE !== undefined)
        return ServiceBusMessageBus.fromNamespace(c.SERVICEBUS_NAMESPACE, this.credential());
      throw new Error("MESSAGE_BUS=service-bus needs SERVICEBUS_CONNECTION_STRING or SERVICEBUS_NAMESPACE");
    }
    if (c.STORAGE_CONNECTION_STRING !== undefined)
      return StorageQueueMessageBus.fromConnectionString(c.STORAGE_CONNECTION_STRING);
    if (c.STORAGE_QUEUE_ENDPOINT !== undefined)
      return StorageQueueMessageBus.fromEndpoint(c.STORAGE_QUEUE_ENDPOINT, this.credential());
    throw new Error("MESSAGE_BUS=storage-queue needs STORAGE_CONNECTION_STRING or STORAGE_QUEUE_ENDPOINT");
  });

  /** Files in the service's blob containers (inbound, archive, quarantine). */
  readonly fileStore = lazy(() => {
    const c = this.config;
    if (c.STORAGE_CONNECTION_STRING !== undefined)
      return BlobFileStore.fromConnectionString(c.STORAGE_CONNECTION_STRING);
    if (c.STORAGE_BLOB_ENDPOINT !== undefined)
      return BlobFileStore.fromEndpoint(c.STORAGE_BLOB_ENDPOINT, this.credential());
    throw new Error("file ingestion needs STORAGE_CONNECTION_STRING or STORAGE_BLOB_ENDPOINT");
  });

  readonly outboxStore = lazy(() => new CosmosOutbox(this.cosmos().container("events"), this.clock));
  /** The outbox the use cases append to: it stores the events, then publishes them to the `events` queue. */
  readonly outbox = lazy<Outbox>(
    () => new EventPublisher(this.outboxStore(), () => this.messageBus(), this.logger("event-publisher")),
  );
  readonly relayOutbox = lazy(
    () =>
      new RelayOutbox({
        outbox: this.outboxStore(),
        bus: this.messageBus(),
        clock: this.clock,
        graceSeconds: this.config.OUTBOX_RELAY_GRACE_SECONDS,
        batchSize: 100,
        maxBatches: 20,
      }),
  );
  /** Published events whose fan-out never completed, sent again on the relay's timer. */
  readonly sweepFanOut = lazy(
    () =>
      new SweepFanOut({
        outbox: this.outboxStore(),
        bus: this.messageBus(),
        clock: this.clock,
        graceSeconds: this.config.FAN_OUT_SWEEP_GRACE_SECONDS,
        batchSize: 100,
        maxBatches: 20,
      }),
  );

  /** Writes the settings audit trail's entries with the changes made through System Settings. */
  readonly settingsAudit = lazy(
    () => new PendingAuditWriter(this.cosmos().container("settings"), this.cosmos().container("audit"), this.clock),
  );

  /** Seals webhook signing secrets and export destination secrets at rest (WEBHOOK_SECRET_KEY). */
  readonly secretCipher = lazy(() => new WebhookSecretCipher(this.config.WEBHOOK_SECRET_KEY));
  /** The service's own storage (never a customer's container) and, on the emulator, the emulator's blob endpoint. */
  readonly serviceStorage = lazy(() =>
    serviceStorageOf({
      connectionString: this.config.STORAGE_CONNECTION_STRING,
      blobEndpoint: this.config.STORAGE_BLOB_ENDPOINT,
      accountResourceId: this.config.STORAGE_ACCOUNT_RESOURCE_ID,
      hostAccountName: this.config.AzureWebJobsStorage__accountName,
    }),
  );
  /** The SSRF guard for customer hosts that are not URLs (export SFTP servers): the webhooks' address rules and setting. */
  readonly outboundHosts = lazy(
    () => new OutboundHostGuard({ allowPrivateNetworks: this.config.WEBHOOK_ALLOW_PRIVATE_NETWORKS }),
  );
}
