import { CosmosDeliveryRepository } from "../adapters/cosmos/cosmos-delivery-repository";
import { CosmosSettingsRepository } from "../adapters/cosmos/cosmos-settings-repository";
import { GuardedWebhookSender } from "../adapters/http/guarded-webhook-sender";
import { DeliverWebhooks } from "../app/webhooks/deliver-webhooks";
import { SweepDeliveries } from "../app/webhooks/sweep-deliveries";
import { DeliveryLog } from "../app/webhooks/delivery-log";
import { FanOutEvents } from "../app/webhooks/fan-out-events";
import { CachedWebhookDirectory } from "../app/webhooks/cached-webhook-directory";
import { CreateWebhook } from "../app/webhooks/create-webhook";
import { DeleteWebhook } from "../app/webhooks/delete-webhook";
import { GetWebhook } from "../app/webhooks/get-webhook";
import { ListWebhooks } from "../app/webhooks/list-webhooks";
import { RotateWebhookSecret } from "../app/webhooks/rotate-webhook-secret";
import { UpdateWebhook } from "../app/webhooks/update-webhook";
import type { WebhookSettingsDeps } from "../app/webhooks/webhook-settings";
import { signWebhook } from "../domain/webhook-signature";
import type { WebhookRepository } from "../ports/webhook-repository";
import type { CoreServices } from "./core";
import { lazy } from "./lazy";

/** Webhooks: the settings (secrets sealed at rest), the SSRF-guarded sender, the fan-out of events, deliveries and their retries. */
export class WebhookServices {
  constructor(private readonly core: CoreServices) {}

  readonly webhookRepository = lazy<WebhookRepository>(() => new CosmosSettingsRepository(this.core.cosmos().container("settings"), "webhook", "Webhook"));
  readonly webhookSender = lazy(() => new GuardedWebhookSender({ allowPrivateNetworks: this.core.config.WEBHOOK_ALLOW_PRIVATE_NETWORKS }));
  readonly webhookDirectory = lazy(
    () => new CachedWebhookDirectory(this.webhookRepository(), this.core.secretCipher(), this.core.clock, this.core.config.AUTH_CLIENT_CACHE_SECONDS),
  );

  /** What the settings use cases share; a change drops the directory's copy of that webhook at once. */
  private readonly settings = lazy(
    (): WebhookSettingsDeps => ({
      repository: this.webhookRepository(),
      sender: this.webhookSender(),
      cipher: this.core.secretCipher(),
      clock: this.core.clock,
      onChange: () => this.webhookDirectory().forget(),
    }),
  );
  readonly createWebhook = lazy(() => new CreateWebhook(this.settings()));
  readonly listWebhooks = lazy(() => new ListWebhooks(this.settings()));
  readonly getWebhook = lazy(() => new GetWebhook(this.settings()));
  readonly updateWebhook = lazy(() => new UpdateWebhook(this.settings()));
  readonly deleteWebhook = lazy(() => new DeleteWebhook(this.settings()));
  readonly rotateWebhookSecret = lazy(() => new RotateWebhookSecret(this.settings()));

  readonly deliveryRepository = lazy(() => new CosmosDeliveryRepository(this.core.cosmos().container("deliveries")));
  readonly deliverWebhooks = lazy(
    () =>
      new DeliverWebhooks(this.deliveryRepository(), this.webhookDirectory(), this.webhookSender(), signWebhook, this.core.messageBus(), this.core.clock, {
        retrySchedule: this.core.config.WEBHOOK_RETRY_SCHEDULE,
      }),
  );
  readonly fanOutEvents = lazy(() => new FanOutEvents(this.deliveryRepository(), this.webhookDirectory(), this.deliverWebhooks(), this.core.clock));
  readonly sweepDeliveries = lazy(
    () => new SweepDeliveries(this.deliveryRepository(), this.core.messageBus(), this.core.clock, this.core.config.DELIVERIES_SWEEP_GRACE_SECONDS),
  );
  readonly deliveryLog = lazy(
    () => new DeliveryLog(this.deliveryRepository(), this.webhookDirectory(), this.deliverWebhooks(), this.core.messageBus(), this.core.clock),
  );
}
