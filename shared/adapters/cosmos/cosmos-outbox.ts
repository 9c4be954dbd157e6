import type { Container, SqlParameter } from "@azure/cosmos";
import { mapConcurrent } from "../../domain/concurrency";
import type { EventEnvelope } from "../../domain/events";
import type { Outbox } from "../../ports/outbox";
import { isConflict } from "./cosmos-errors";

interface OutboxDoc extends EventEnvelope {
  docType: "outbox";
  /** pending until the delivery side has published it to the message bus. */
  status: "pending" | "published";
}

/** The event outbox in the `events` container (partition /id = the event id). */
export class CosmosOutbox implements Outbox {
  constructor(private readonly container: Container) {}

  async append(events: readonly EventEnvelope[]): Promise<void> {
    await mapConcurrent(events, 16, async (event) => {
      const doc: OutboxDoc = { ...event, docType: "outbox", status: "pending" };
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
    return resources.map(({ id, event, timestamp, data }) => ({ id, event, timestamp, data }));
  }
}
