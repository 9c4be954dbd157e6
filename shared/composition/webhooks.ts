import { CosmosDeliveryRecoveries } from "../adapters/cosmos/cosmos-delivery-recoveries";
import { CosmosDeliveryRepository } from "../adapters/cosmos/cosmos-delivery-repository";
import { CosmosSettingsRepository } from "../adapters/cosmos/cosmos-settings-repository";
import { GuardedWebhookSender } from "../adapters/http/guarded-webhook-sender";
import { CachedWebhookDirectory } from "../app/webhooks/cached-webhook-directory";
import { CreateWebhook } from "../app/webhooks/create-webhook";
import { DeleteWebhook } from "../app/webhooks/delete-webhook";
import { DeliverWebhooks } from "../app/webhooks/deliver-webhooks";
import { DeliveryAttempts } from "../app/webhooks/delivery-attempts";
import type { DeliveryLogDeps } from "../app/webhooks/delivery-log";
import { FanOutEvents } from "../app/webhooks/fan-out-events";
import { GetWebhook } from "../app/webhooks/get-webhook";
import { GetWebhookDelivery } from "../app/webhooks/get-webhook-delivery";
import { ListWebhookDeliveries } from "../app/webhooks/list-webhook-deliveries";
import { ListWebhooks } from "../app/webhooks/list-webhooks";
import { RecoverWebhookDeliveries } from "../app/webhooks/recover-webhook-deliveries";
import { RetryWebhookDelivery } from "../app/webhooks/retry-webhook-delivery";
import { RotateWebhookSecret } from "../app/webhooks/rotate-webhook-secret";
import { RunDeliveryRecovery } from "../app/webhooks/run-delivery-recovery";
import { SweepDeliveries } from "../app/webhooks/sweep-deliveries";
import { TestWebhook } from "../app/webhooks/test-webhook";
import { UpdateWebhook } from "../app/webhooks/update-webhook";
import type { WebhookSettingsDeps } from "../app/webhooks/webhook-settings";
import { signWebhook } from "../domain/webhook-signature";
import type { WebhookRepository } from "../ports/webhook-repository";
import { webhookAudit } from "../domain/settings-audit-subjects";
import type { CoreServices } from "./core";
import { lazy } from "./lazy";

/** Webhooks: the settings (secrets sealed at rest), the SSRF-guarded sender, the fan-out of events, deliveries and their retries. */
export class WebhookServices {
  constructor(private readonly core: CoreServices) {}

  readonly webhookRepository = lazy<WebhookRepository>(
    () =>
      new CosmosSettingsRepository(this.core.cosmos().container("settings"), "webhook", "Webhook", {
        writer: this.core.settingsAudit(),
        subject: webhookAudit,
      }),
  );
  readonly webhookSender = lazy(
    () => new GuardedWebhookSender({ allowPrivateNetworks: this.core.config.WEBHOOK_ALLOW_PRIVATE_NETWORKS }),
  );
  readonly webhookDirectory = lazy(
    () =>
      new CachedWebhookDirectory(
        this.webhookRepository(),
        this.core.secretCipher(),
        this.core.clock,
        this.core.config.AUTH_CLIENT_CACHE_SECONDS,
        this.core.config.WEBHOOK_DISABLE_AFTER_DAYS,
      ),
  );
  readonly deliveryRepository = lazy(() => new CosmosDeliveryRepository(this.core.cosmos().container("deliveries")));
  readonly deliveryRecoveries = lazy(() => new CosmosDeliveryRecoveries(this.core.cosmos().container("deliveries")));
  readonly deliveryAttempts = lazy(
    () =>
      new DeliveryAttempts({
        deliveries: this.deliveryRepository(),
        directory: this.webhookDirectory(),
        sender: this.webhookSender(),
        sign: signWebhook,
        bus: this.core.messageBus(),
        clock: this.core.clock,
        retrySchedule: this.core.config.WEBHOOK_RETRY_SCHEDULE,
      }),
  );

  /** What the settings use cases share; a change drops the directory's copy of that webhook at once. */
  private readonly settings = lazy((): WebhookSettingsDeps => ({
    repository: this.webhookRepository(),
    sender: this.webhookSender(),
    deliveries: this.deliveryRepository(),
    cipher: this.core.secretCipher(),
    clock: this.core.clock,
    onChange: (id) => this.webhookDirectory().forget(id),
  }));
  readonly createWebhook = lazy(() => new CreateWebhook(this.settings()));
  readonly listWebhooks = lazy(() => new ListWebhooks(this.settings()));
  readonly getWebhook = lazy(() => new GetWebhook(this.settings()));
  readonly updateWebhook = lazy(() => new UpdateWebhook(this.settings()));
  readonly deleteWebhook = lazy(() => new DeleteWebhook(this.settings()));
  readonly rotateWebhookSecret = lazy(() => new RotateWebhookSecret(this.settings()));

  /** What the delivery side's use cases share: the fan-out, the retries, the log, its manual retry and the test event. */
  private readonly delivering = lazy((): DeliveryLogDeps => ({
    deliveries: this.deliveryRepository(),
    directory: this.webhookDirectory(),
    attempts: this.deliveryAttempts(),
    bus: this.core.messageBus(),
    outbox: this.core.outboxStore(),
    clock: this.core.clock,
  }));
  readonly fanOutEvents = lazy(() => new FanOutEvents(this.delivering()));
  readonly deliverWebhooks = lazy(() => new DeliverWebhooks(this.delivering()));
  readonly sweepDeliveries = lazy(
    () =>
      new SweepDeliveries({
        ...this.delivering(),
        recoveries: this.deliveryRecoveries(),
        graceSeconds: this.core.config.DELIVERIES_SWEEP_GRACE_SECONDS,
      }),
  );
  readonly recoverWebhookDeliveries = lazy(
    () => new RecoverWebhookDeliveries({ ...this.delivering(), recoveries: this.deliveryRecoveries() }),
  );
  readonly runDeliveryRecovery = lazy(
    () => new RunDeliveryRecovery({ ...this.delivering(), recoveries: this.deliveryRecoveries() }),
  );
  readonly listWebhookDeliveries = lazy(() => new ListWebhookDeliveries(this.delivering()));
  readonly getWebhookDelivery = lazy(() => new GetWebhookDelivery(this.delivering()));
  readonly retryWebhookDelivery = lazy(() => new RetryWebhookDelivery(this.delivering()));
  readonly testWebhook = lazy(() => new TestWebhook(this.delivering()));
}
