import type { DeliveryRecovery } from "../../domain/delivery-recovery";
import { AppError } from "../../domain/errors";
import type { DeliveryRecoveries } from "../../ports/delivery-recoveries";
import { recoveryMessage } from "./deliveries-message";
import { webhookTarget, type DeliveryLogDeps } from "./delivery-log";

export interface RecoverWebhookDeliveriesDeps extends Pick<
  DeliveryLogDeps,
  "deliveries" | "directory" | "bus" | "clock"
> {
  recoveries: DeliveryRecoveries;
}

/**
 * "Send again every delivery that failed since T": counts a webhook's deliveries that ended failed
 * between `since` and now, records the recovery (durably: its steps go through the `deliveries` queue,
 * and the deliveries sweep takes up one whose next step was lost) and queues its first step. The
 * deliveries are then sent one at a time, oldest first, each with its own webhook-id (RunDeliveryRecovery).
 */
export class RecoverWebhookDeliveries {
  constructor(private readonly deps: RecoverWebhookDeliveriesDeps) {}

  async execute({ webhookId, since }: { webhookId: string; since: string }): Promise<{ count: number }> {
    const target = await webhookTarget(this.deps.directory, webhookId);
    if (target.status !== "enabled")
      throw new AppError("CONFLICT", `Webhook '${webhookId}' is disabled; enable it before recovering its deliveries`);
    const now = this.deps.clock.now().toISOString();
    const window = { since: new Date(since).toISOString(), until: now };
    const count = await this.deps.deliveries.countFailedBetween(webhookId, window);
    if (count === 0) return { count };
    const recovery: DeliveryRecovery = {
      webhookId,
      ...window,
      count,
      sent: 0,
      after: "",
      step: 0,
      status: "running",
      startedAt: now,
      updatedAt: now,
    };
    if (!(await this.deps.recoveries.start(recovery))) {
      const running = await this.deps.recoveries.get(webhookId);
      throw new AppError(
        "CONFLICT",
        `A recovery of webhook '${webhookId}' is running (${running?.sent ?? 0} of ${running?.count ?? 0} sent); start another when it is done`,
      );
    }
    await this.deps.bus.send("deliveries", [recoveryMessage(webhookId, 0)]);
    return { count };
  }
}
