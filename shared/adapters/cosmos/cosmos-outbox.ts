import { BulkOperationType, type Container, type JSONObject, type SqlParameter } from "@azure/cosmos";
import type { EventEnvelope } from "../../domain/events";
import { systemClock, type Clock } from "../../ports/clock";
import { currentTraceparent } from "../../observability/trace-context";
import type { Outbox, PendingEvent } from "../../ports/outbox";
import { bulkWithRetry } from "./bulk";

interface OutboxDoc extends EventEnvelope {
  docType: "outbox";
  /** pending until the bus accepted the event; the relay re-publishes what stays pending. */
  status: "pending" | "published";
  /**
   * When the entry was written: the relay's grace period counts from here, not from the event's own
   * time. Entries from before the relay existed have none and are left alone (nothing consumed them).
   */
  appendedAt?: string;
  publishedAt?: string;
  /** The W3C trace context the entry was appended in (the request's): the relay publishes it in that trace. */
  traceparent?: string;
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
    const traceparent = currentTraceparent();
    const results = await bulkWithRetry(
      this.container,
      events.map((event) => {
        const doc: OutboxDoc = {
          ...event,
          docType: "outbox",
          status: "pending",
          appendedAt,
          ...(traceparent !== undefined ? { traceparent } : {}),
        };
        return {
          operationType: BulkOperationType.Create,
          partitionKey: event.id,
          resourceBody: doc as unknown as JSONObject,
        };
      }),
    );
    // 409: already appended by an earlier attempt, which keeps its own status.
    const failed = results.find((r) => r.statusCode !== 409 && (r.statusCode < 200 || r.statusCode > 299));
    if (failed !== undefined) throw new Error(`appending to the outbox failed with ${failed.statusCode}`);
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

  async unpublished(appendedBefore: string, limit: number): Promise<PendingEvent[]> {
    // A cross-partition query (partition = event id); the relay runs it every few seconds on few entries.
    const { resources } = await this.container.items
      .query<OutboxDoc>({
        query: `SELECT TOP ${Math.max(1, Math.floor(limit))} * FROM c WHERE c.docType = 'outbox' AND c.status = 'pending' AND c.appendedAt < @before ORDER BY c.appendedAt`,
        parameters: [{ name: "@before", value: appendedBefore }],
      })
      .fetchAll();
    return resources.map((doc) => ({
      ...envelopeOf(doc),
      ...(doc.traceparent !== undefined ? { traceparent: doc.traceparent } : {}),
    }));
  }

  async markPublished(ids: readonly string[]): Promise<void> {
    const publishedAt = this.clock.now().toISOString();
    // Patches in bulk (the stand-in takes no patch inside a bulk call), so: one read and one replace
    // per entry, both in bulk, the replace conditional on the ETag read. A lost race means another
    // publisher or the relay wrote the entry meanwhile; its status is then published too or will be.
    const unique = [...new Set(ids)];
    const read = await bulkWithRetry(
      this.container,
      unique.map((id) => ({ operationType: BulkOperationType.Read, id, partitionKey: id })),
    );
    const replaces = read.flatMap((result, index) => {
      const doc = result.resourceBody as unknown as OutboxDoc | undefined;
      const id = unique[index];
      if (result.statusCode !== 200 || doc === undefined || id === undefined || doc.status === "published") return [];
      const next: OutboxDoc = {
        ...envelopeOf(doc),
        docType: "outbox",
        status: "published",
        ...(doc.appendedAt !== undefined ? { appendedAt: doc.appendedAt } : {}),
        publishedAt,
        ...(doc.traceparent !== undefined ? { traceparent: doc.traceparent } : {}),
      };
      return [
        {
          operationType: BulkOperationType.Replace,
          id,
          partitionKey: id,
          resourceBody: next as unknown as JSONObject,
          ifMatch: result.eTag ?? "",
        },
      ];
    });
    const results = await bulkWithRetry(this.container, replaces);
    const failed = results.find(
      (r) => r.statusCode !== 412 && r.statusCode !== 404 && (r.statusCode < 200 || r.statusCode > 299),
    );
    if (failed !== undefined) throw new Error(`marking outbox entries published failed with ${failed.statusCode}`);
  }
}
