import type { Container, SqlParameter } from "@azure/cosmos";
import { mapConcurrent } from "../../domain/concurrency";
import type { EventEnvelope } from "../../domain/events";
import { systemClock, type Clock } from "../../ports/clock";
import type { Outbox } from "../../ports/outbox";
import { readDocument, updateDocument } from "./conditional-update";
import { isConflict } from "./cosmos-errors";

interface OutboxDoc extends EventEnvelope {
  docType: "outbox";
  /** pending until the bus accepted the event; the relay re-publishes what stays pending. */
  status: "pending" | "published";
  /** When the entry was written: the relay's grace period counts from here, not from the event's own time. */
  appendedAt?: string;
  publishedAt?: string;
}

const envelopeOf = ({ id, event, timestamp, data }: OutboxDoc): EventEnvelope => ({ id, event, timestamp, data });

/** The event outbox in the `events` container (partition /id = the event id). */
export class CosmosOutbox implements Outbox {
  constructor(
    private readonly container: Container,
    private readonly clock: Clock = systemClock,
  ) {}

  async append(events: readonly EventEnvelope[]): Promise<void> {
    const appendedAt = this.clock.now().toISOString();
    await mapConcurrent(events, 16, async (event) => {
      const doc: OutboxDoc = { ...event, docType: "outbox", status: "pending", appendedAt };
      try {
        await this.container.items.create(doc);
      } catch (error) {
        if (!isConflict(error)) throw error; // already appended by an earlier attempt
      }
    });
  }

  async list(filter: { event?: string; since?: string }): Promise<EventEnvelope[]> {
    const where = ["c.docType = 'outbox'"];
    const parameters: SqlParameter[] = [];
    if (filter.event !== undefined) {
      where.push("c.event = @event");
      parameters.push({ name: "@event", value: filter.event });
    }
    if (filter.since !== undefined) {
      where.push("c.timestamp >= @since");
      parameters.push({ name: "@since", value: filter.since });
    }
    const { resources } = await this.container.items
      .query<OutboxDoc>({ query: `SELECT * FROM c WHERE ${where.join(" AND ")} ORDER BY c.timestamp`, parameters })
      .fetchAll();
    return resources.map(envelopeOf);
  }

  async unpublished(appendedBefore: string, limit: number): Promise<EventEnvelope[]> {
    // A cross-partition query (partition = event id); the relay runs it every few seconds on few entries.
    const { resources } = await this.container.items
      .query<OutboxDoc>({
        query: `SELECT TOP ${Math.max(1, Math.floor(limit))} * FROM c WHERE c.docType = 'outbox' AND c.status = 'pending' AND c.appendedAt < @before ORDER BY c.appendedAt`,
        parameters: [{ name: "@before", value: appendedBefore }],
      })
      .fetchAll();
    return resources.map(envelopeOf);
  }

  async markPublished(ids: readonly string[]): Promise<void> {
    const publishedAt = this.clock.now().toISOString();
    await mapConcurrent([...new Set(ids)], 16, async (id) => {
      await updateDocument<OutboxDoc>(
        this.container,
        { id, partitionKey: id, what: `outbox entry ${id}` },
        () => readDocument<OutboxDoc>(this.container, id, id, (doc) => doc.docType === "outbox"),
        (current) => (current.status === "published" ? undefined : { ...current, status: "published", publishedAt }),
      );
    });
  }
}
