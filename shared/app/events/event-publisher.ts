import type { EventEnvelope } from "../../domain/events";
import { errorFields, type Logger } from "../../logging";
import type { MessageBus } from "../../ports/message-bus";
import type { Outbox, PendingEvent } from "../../ports/outbox";
import { eventMessages } from "./event-messages";

/** Events sent per chunk: a large import's events reach the fan-out as the publisher goes. */
const PUBLISH_CHUNK = 500;

/**
 * The outbox as the use cases see it: appending stores the events beside their data (pending), then
 * sends them to the `events` queue. An entry stays pending until the fan-out has recorded a delivery
 * for every subscribed webhook and marks it (so no write here: the fan-out's mark is the one every
 * event needs). A failed send is logged, not thrown: the data and its events are stored, and the
 * outbox relay sends what is still pending after its grace period, whether its message never left,
 * was lost, or died with a process mid fan-out.
 */
export class EventPublisher implements Outbox {
  constructor(
    private readonly store: Outbox,
    /** Resolved on first publish, so a bus that cannot be built fails the publish, never the data write. */
    private readonly bus: () => MessageBus,
    private readonly log: Logger,
  ) {}

  async append(events: readonly EventEnvelope[]): Promise<void> {
    await this.store.append(events);
    if (events.length === 0) return;
    let published = 0;
    try {
      const bus = this.bus();
      for (; published < events.length; published += PUBLISH_CHUNK) {
        const chunk = events.slice(published, published + PUBLISH_CHUNK);
        await bus.send("events", eventMessages(chunk));
      }
    } catch (error) {
      const left = events.slice(published).map((e) => e.id);
      this.log.warn("events stored but not sent; the outbox relay sends them later", {
        unpublished: left.length,
        eventIds: left.slice(0, 20),
        ...errorFields(error),
      });
    }
  }

  list(filter: { event?: string; since?: string }): Promise<EventEnvelope[]> {
    return this.store.list(filter);
  }

  unpublished(appendedBefore: string, limit: number): Promise<PendingEvent[]> {
    return this.store.unpublished(appendedBefore, limit);
  }

  markPublished(ids: readonly string[]): Promise<void> {
    return this.store.markPublished(ids);
  }

  markFannedOut(ids: readonly string[]): Promise<void> {
    return this.store.markFannedOut(ids);
  }

  notFannedOut(publishedBefore: string, limit: number): Promise<PendingEvent[]> {
    return this.store.notFannedOut(publishedBefore, limit);
  }
}
