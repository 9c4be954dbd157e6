import type { DeliveryRef } from "../../domain/delivery";
import type { OutgoingMessage } from "../../ports/message-bus";

/**
 * One delivery a `deliveries` message names, with the due time the message was sent for: a message
 * whose due time the record no longer has is stale (a later attempt, or a manual retry, came since)
 * and is skipped. Messages without one (sent before due times were named) fall back to "due now".
 */
export interface DeliveryTicket extends DeliveryRef {
  due?: string;
}

/** The body of a `deliveries` message: the deliveries to attempt (a message may name several). */
export interface DeliveriesMessage {
  deliveries: DeliveryTicket[];
}

/** A `deliveries` message that carries a step of a webhook's recovery (RunDeliveryRecovery) instead. */
export interface RecoveryMessage {
  recovery: { webhookId: string; step: number };
}

/** The message that asks for step `step` of a webhook's recovery. */
export const recoveryMessage = (webhookId: string, step: number): OutgoingMessage => ({
  body: { recovery: { webhookId, step } } satisfies RecoveryMessage,
});

/** Tickets per `deliveries` message. */
const TICKETS_PER_MESSAGE = 32;

/** The `deliveries` messages naming these deliveries, up to 32 a message, each delayed by `delaySeconds`. */
export function deliveriesMessages(tickets: readonly DeliveryTicket[], delaySeconds = 0): OutgoingMessage[] {
  const messages: OutgoingMessage[] = [];
  for (let i = 0; i < tickets.length; i += TICKETS_PER_MESSAGE) {
    const body = { deliveries: tickets.slice(i, i + TICKETS_PER_MESSAGE) } satisfies DeliveriesMessage;
    messages.push(delaySeconds > 0 ? { body, delaySeconds } : { body });
  }
  return messages;
}

/** Retries, one message per whole second of delay (jitter spreads them), so a burst of failures costs few sends. */
export function retryMessages(retries: readonly { ticket: DeliveryTicket; delaySeconds: number }[]): OutgoingMessage[] {
  const bySecond = new Map<number, DeliveryTicket[]>();
  for (const { ticket, delaySeconds } of retries) {
    const second = Math.ceil(delaySeconds);
    bySecond.set(second, [...(bySecond.get(second) ?? []), ticket]);
  }
  return [...bySecond].flatMap(([second, tickets]) => deliveriesMessages(tickets, second));
}
