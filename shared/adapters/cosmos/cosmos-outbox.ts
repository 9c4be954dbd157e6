import { BulkOperationType, type Container, type JSONObject, type SqlParameter } from "@azure/cosmos";
import type { EventEnvelope } from "../../domain/events";
import { systemClock, type Clock } from "../../ports/clock";
import { currentTraceparent } from "../../observability/trace-context";
import type { Outbox, PendingEvent } from "../../ports/outbox";
import { bulkWithRetry } from "./bulk";
import { stripSystem } from "./cosmos-errors";

interface OutboxDoc extends EventEnvelope {
  docType: "outbox";
  /**
   * pending until its fan-out is complete (or the relay sent it again); the relay sends what stays
   * pending. Entries from before the fan-out recorded itself were marked published once sent.
   */
  status: "pending" | "published";
  /**
   * When the entry was written: the relay's grace period counts from here, not from the event's own
   * time. Entries from before the relay existed have none and are left alone (nothing consumed them).
   */
  appendedAt?: string;
  /** When the relay or the fan-out sweep last sent it to the `events` queue (or its fan-out completed). */
  publishedAt?: string;
  /** The W3C trace context the entry was appended in (the request's): the relay publishes it in that trace. */
  traceparent?: string;
  /**
   * `pending` until the fan-out recorded a delivery for every webhook subscribed to the event (`done`,
   * at `fannedOutAt`): a relayed (published) entry still pending is sent again by the sweep. Entries
   * from before the fan-out recorded this have none and are left alone.
   */
  fanOut?: "pending" | "done";
  fannedOutAt?: string;
}

/** Rounds of read-and-replace for an entry whose replace lost to another writer (the writer's mark, the fan-out's). */
const MARK_ROUNDS = 3;

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
          fanOut: "pending",
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
    // Sent again while its fan-out is still due: the new time, so the sweep waits its grace period again.
    await this.mark(ids, (doc) =>
      doc.fanOut === "done" || (doc.status === "published" && doc.fanOut === undefined)
        ? undefined
        : { ...doc, status: "published", publishedAt },
    );
  }

  async markFannedOut(ids: readonly string[]): Promise<void> {
    const fannedOutAt = this.clock.now().toISOString();
    await this.mark(ids, (doc) =>
      doc.fanOut === "done"
        ? undefined
        : { ...doc, status: "published", publishedAt: doc.publishedAt ?? fannedOutAt, fanOut: "done", fannedOutAt },
    );
  }

  async notFannedOut(publishedBefore: string, limit: number): Promise<PendingEvent[]> {
    // Cross-partition, as `unpublished`: the sweep runs it every few seconds and finds few entries.
    const { resources } = await this.container.items
      .query<OutboxDoc>({
        query: `SELECT TOP ${Math.max(1, Math.floor(limit))} * FROM c WHERE c.docType = 'outbox' AND c.fanOut = 'pending' AND c.status = 'published' AND c.publishedAt < @before ORDER BY c.publishedAt`,
        parameters: [{ name: "@before", value: publishedBefore }],
      })
      .fetchAll();
    return resources.map((doc) => ({
      ...envelopeOf(doc),
      ...(doc.traceparent !== undefined ? { traceparent: doc.traceparent } : {}),
    }));
  }

  /**
   * Applies `change` to each entry (patches in bulk are not served by the stand-in, so: one read and one
   * replace per entry, both in bulk, the replace conditional on the ETag read). An entry another writer
   * changed meanwhile is read and changed again; a missing one (an event that never was in the outbox)
   * is left alone.
   */
  private async mark(ids: readonly string[], change: (doc: OutboxDoc) => OutboxDoc | undefined): Promise<void> {
    let left = [...new Set(ids)];
    for (let round = 0; round < MARK_ROUNDS && left.length > 0; round++) {
      const read = await bulkWithRetry(
        this.container,
        left.map((id) => ({ operationType: BulkOperationType.Read, id, partitionKey: id })),
      );
      const replaces = read.flatMap((result, index) => {
        const doc = result.resourceBody as unknown as OutboxDoc | undefined;
        const id = left[index];
        if (result.statusCode !== 200 || doc === undefined || id === undefined) return [];
        const next = change(stripSystem(doc));
        if (next === undefined) return [];
        return [
          {
            id,
            op: {
              operationType: BulkOperationType.Replace,
              id,
              partitionKey: id,
              resourceBody: next as unknown as JSONObject,
              ifMatch: result.eTag ?? "",
            } as const,
          },
        ];
      });
      const results = await bulkWithRetry(
        this.container,
        replaces.map((r) => r.op),
      );
      const failed = results.find(
        (r) => r.statusCode !== 412 && r.statusCode !== 404 && (r.statusCode < 200 || r.statusCode > 299),
      );
      if (failed !== undefined) throw new Error(`marking outbox entries failed with ${failed.statusCode}`);
      left = replaces.filter((_, i) => results[i]?.statusCode === 412).map((r) => r.id);
    }
  }
}
