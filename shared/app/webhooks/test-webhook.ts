import { publicDelivery, testDelivery, type Delivery } from "../../domain/delivery";
import { webhookTarget, type DeliveryLogDeps } from "./delivery-log";

export type TestWebhookDeps = Pick<DeliveryLogDeps, "directory" | "attempts" | "clock">;

/** Sends `webhook.test` now, disabled webhook or not, as a delivery of its own (retried like any other when it fails). */
export class TestWebhook {
  constructor(private readonly deps: TestWebhookDeps) {}

  async execute(webhookId: string): Promise<Delivery> {
    const target = await webhookTarget(this.deps.directory, webhookId);
    const now = this.deps.clock.now();
    const [stored] = await this.deps.attempts.attempt([{ delivery: testDelivery(webhookId, now), target }]);
    if (stored === undefined) throw new Error(`test delivery of ${webhookId} was not attempted`); // a fresh random event id: cannot happen
    return publicDelivery(stored);
  }
}
