import type { DequeuedMessageItem, QueueClient } from "@azure/storage-queue";
import type { Logger } from "../shared/logging";

/**
 * Keeps a received message invisible while its handler runs: at half the visibility timeout it is pushed
 * out by another full timeout, up to `maxRenewalSeconds`. Each renewal changes the pop receipt; `end`
 * stops renewing and gives the current one for the delete. After a crash nothing renews any more, and the
 * message comes back within one visibility timeout.
 */
export function holdMessage(
  queue: QueueClient,
  message: DequeuedMessageItem,
  options: { visibilityTimeout: number; maxRenewalSeconds: number },
  log: Logger,
): { end(): Promise<string> } {
  let popReceipt = message.popReceipt;
  let renewing: Promise<void> = Promise.resolve();
  const until = Date.now() + options.maxRenewalSeconds * 1000;
  const timer = setInterval(
    () => {
      if (Date.now() >= until) {
        clearInterval(timer);
        return;
      }
      renewing = renewing.then(async () => {
        try {
          const renewed = await queue.updateMessage(
            message.messageId,
            popReceipt,
            undefined,
            options.visibilityTimeout,
          );
          if (renewed.popReceipt !== undefined) popReceipt = renewed.popReceipt;
        } catch (error) {
          log.warn("queue message renewal failed", {
            queue: queue.name,
            messageId: message.messageId,
            error: String(error),
          });
        }
      });
    },
    (options.visibilityTimeout * 1000) / 2,
  );
  return {
    end: async () => {
      clearInterval(timer);
      await renewing;
      return popReceipt;
    },
  };
}
