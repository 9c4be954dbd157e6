import type { EventEnvelope } from "../../domain/events";
import { errorFields, type Logger } from "../../logging";
import type { MessageBus } from "../../ports/message-bus";
import type { Outbox, PendingEvent } from "../../ports/outbox";
import { eventMessages } from "./event-messages";

/**
 * Events sent, then marked, per chunk: a large import's events are partly published as it goes, so a
 * failure or a crash half-way leaves only the rest to the relay.
 */
const PUBLISH_CHUNK = 500;

/**
 * The outbox as the use cases see it: appending stores the events beside their data, then publishes
 * them to the `events` queue and marks them published. A failed publish is logged, not thrown: the
 * data and its events are stored, and the outbox relay sends what is still pending later.
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
        await this.store.markPublished(chunk.map((e) => e.id));
      }
    } catch (error) {
      const left = events.slice(published).map((e) => e.id);
      this.log.warn("events stored but not published; the outbox relay publishes them later", {
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
