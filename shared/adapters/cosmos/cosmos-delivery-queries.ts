import type { Container } from "@azure/cosmos";
import type { DeliveryRef, StoredDelivery } from "../../domain/delivery";
import { deliveryOrder } from "../../domain/delivery-recovery";
import type { CursorPage, PageRequest } from "../../domain/page-request";
import type { DeliveryFilter, DueDelivery, VersionedDelivery } from "../../ports/delivery-repository";
import { equalityFilters, pagedQuery } from "./paged-query";

export interface DeliveryDoc extends StoredDelivery {
  docType: "delivery";
  /** Newest first, unique: creation time then id (deliveryOrder). */
  sortKey: string;
  _etag?: string;
}
export const toDoc = (delivery: StoredDelivery): DeliveryDoc => ({
  ...delivery,
  docType: "delivery",
  sortKey: deliveryOrder(delivery),
});

export function toDelivery(doc: DeliveryDoc): VersionedDelivery {
  const {
    docType: _d,
    sortKey: _s,
    _rid,
    _self,
    _ts,
    _attachments,
    _lsn,
    ...delivery
  } = doc as DeliveryDoc & Record<string, unknown>;
  return delivery;
}

export const withoutEtag = (delivery: StoredDelivery): StoredDelivery => {
  const { _etag: _e, ...rest } = delivery as VersionedDelivery;
  return rest;
};

/** A webhook's deliveries that ended failed within a window (`completedAt`, inclusive). */
const FAILED_BETWEEN =
  "c.docType = 'delivery' AND c.webhookId = @webhookId AND c.status = 'failed' AND c.completedAt >= @since AND c.completedAt <= @until";

const windowParameters = (webhookId: string, { since, until }: { since: string; until: string }) => [
  { name: "@webhookId", value: webhookId },
  { name: "@since", value: since },
  { name: "@until", value: until },
];

/** The queries over the `deliveries` container: lists, recoveries' batches, the sweep's and a 410's scans. */
export class DeliveryQueries {
  constructor(private readonly container: Container) {}

  async list(webhookId: string, filter: DeliveryFilter, request: PageRequest): Promise<CursorPage<StoredDelivery>> {
    const { where, parameters } = equalityFilters({ webhookId, status: filter.status, event: filter.event });
    if (filter.from !== undefined) {
      where.push("c.createdAt >= @from");
      parameters.push({ name: "@from", value: filter.from });
    }
    if (filter.to !== undefined) {
      where.push("c.createdAt <= @to");
      parameters.push({ name: "@to", value: filter.to });
    }
    const page = await pagedQuery<DeliveryDoc>(
      this.container,
      {
        where: ["c.docType = 'delivery'", ...where],
        parameters,
        sortField: "sortKey",
        descending: true,
        partitionKey: webhookId,
      },
      request,
    );
    return { ...page, items: page.items.map((doc) => withoutEtag(toDelivery(doc))) };
  }

  async failedBetween(
    webhookId: string,
    window: { since: string; until: string },
    after: string,
    limit: number,
  ): Promise<VersionedDelivery[]> {
    const { resources } = await this.container.items
      .query<DeliveryDoc>(
        {
          query: `SELECT TOP @n * FROM c WHERE ${FAILED_BETWEEN} AND c.sortKey > @after ORDER BY c.sortKey`,
          parameters: [
            ...windowParameters(webhookId, window),
            { name: "@n", value: limit },
            { name: "@after", value: after },
          ],
        },
        { partitionKey: webhookId },
      )
      .fetchAll();
    return resources.map(toDelivery);
  }

  async countFailedBetween(webhookId: string, window: { since: string; until: string }): Promise<number> {
    const { resources } = await this.container.items
      .query<number>(
        {
          query: `SELECT VALUE COUNT(1) FROM c WHERE ${FAILED_BETWEEN}`,
          parameters: windowParameters(webhookId, window),
        },
        { partitionKey: webhookId },
      )
      .fetchAll();
    return resources[0] ?? 0;
  }

  async pendingOf(webhookId: string, limit: number): Promise<DeliveryRef[]> {
    const { resources } = await this.container.items
      .query<DeliveryRef>(
        {
          query:
            "SELECT TOP @n c.id, c.webhookId FROM c WHERE c.docType = 'delivery' AND c.webhookId = @webhookId AND c.status = 'pending'",
          parameters: [
            { name: "@n", value: limit },
            { name: "@webhookId", value: webhookId },
          ],
        },
        { partitionKey: webhookId },
      )
      .fetchAll();
    return resources.map(({ id, webhookId: w }) => ({ id, webhookId: w }));
  }

  async *overdue(before: string, pageSize: number): AsyncIterable<DueDelivery[]> {
    const query = this.container.items.query<DueDelivery>(
      {
        query:
          "SELECT c.id, c.webhookId, c.nextAttemptAt FROM c WHERE c.docType = 'delivery' AND c.status = 'pending' AND c.nextAttemptAt < @before",
        parameters: [{ name: "@before", value: before }],
      },
      { maxItemCount: pageSize },
    );
    while (query.hasMoreResults()) {
      const { resources } = await query.fetchNext();
      if (resources.length > 0)
        yield resources.map(({ id, webhookId, nextAttemptAt }) => ({ id, webhookId, nextAttemptAt }));
    }
  }
}
