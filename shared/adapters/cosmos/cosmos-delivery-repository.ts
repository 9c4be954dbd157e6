import { BulkOperationType, type Container, type JSONObject } from "@azure/cosmos";
import type { DeliveryEventName, DeliveryRef, DeliveryStatus, StoredDelivery } from "../../domain/delivery";
import type { CursorPage, PageRequest } from "../../domain/page-request";
import {
  deliveryKey,
  type DeliveryRepository,
  type DueDelivery,
  type VersionedDelivery,
} from "../../ports/delivery-repository";
import { bulkRead, bulkWithRetry } from "./bulk";
import { readDocument, updateDocument } from "./conditional-update";
import { isConflict, isNotFound, isPreconditionFailed } from "./cosmos-errors";
import { equalityFilters, pagedQuery } from "./paged-query";

interface DeliveryDoc extends StoredDelivery {
  docType: "delivery";
  /** Newest first, unique: creation time then id. */
  sortKey: string;
  _etag?: string;
}

const toDoc = (delivery: StoredDelivery): DeliveryDoc => ({
  ...delivery,
  docType: "delivery",
  sortKey: `${delivery.createdAt}|${delivery.id}`,
});

function toDelivery(doc: DeliveryDoc): VersionedDelivery {
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

const withoutEtag = (delivery: StoredDelivery): StoredDelivery => {
  const { _etag: _e, ...rest } = delivery as VersionedDelivery;
  return rest;
};

/** Deliveries in the `deliveries` container (partition /webhookId). */
export class CosmosDeliveryRepository implements DeliveryRepository {
  constructor(private readonly container: Container) {}

  async createIfAbsent(delivery: StoredDelivery): Promise<string | undefined> {
    try {
      const { etag } = await this.container.items.create(toDoc(delivery));
      return etag ?? "";
    } catch (error) {
      if (isConflict(error)) return undefined; // an earlier fan-out of the same event made it
      throw error;
    }
  }

  async createManyIfAbsent(deliveries: readonly StoredDelivery[]): Promise<(string | undefined)[]> {
    if (deliveries.length === 1) return [await this.createIfAbsent(deliveries[0]!)];
    const results = await bulkWithRetry(
      this.container,
      deliveries.map((d) => ({
        operationType: BulkOperationType.Create,
        partitionKey: d.webhookId,
        resourceBody: toDoc(d) as unknown as JSONObject,
      })),
    );
    return results.map((r, i) => {
      if (r.statusCode === 409) return undefined;
      if (r.statusCode >= 200 && r.statusCode < 300) return r.eTag ?? "";
      throw new Error(`creating delivery ${deliveries[i]?.id ?? ""} failed with ${r.statusCode}`);
    });
  }

  async replaceManyIfUnchanged(
    items: readonly { delivery: StoredDelivery; etag: string }[],
  ): Promise<(string | undefined)[]> {
    if (items.length === 1) return [await this.replaceIfUnchanged(items[0]!.delivery, items[0]!.etag)];
    const results = await bulkWithRetry(
      this.container,
      items.map(({ delivery, etag }) => ({
        operationType: BulkOperationType.Replace,
        id: delivery.id,
        partitionKey: delivery.webhookId,
        ifMatch: etag,
        resourceBody: toDoc(withoutEtag(delivery)) as unknown as JSONObject,
      })),
    );
    return results.map((r, i) => {
      if (r.statusCode === 412 || r.statusCode === 404) return undefined;
      if (r.statusCode >= 200 && r.statusCode < 300) return r.eTag ?? "";
      throw new Error(`recording delivery ${items[i]?.delivery.id ?? ""} failed with ${r.statusCode}`);
    });
  }

  async get(ref: DeliveryRef): Promise<VersionedDelivery | undefined> {
    const doc = await this.read(ref);
    return doc === undefined ? undefined : toDelivery(doc);
  }

  async getMany(refs: readonly DeliveryRef[]): Promise<Map<string, VersionedDelivery>> {
    const found = new Map<string, VersionedDelivery>();
    if (refs.length === 1) {
      const one = await this.get(refs[0]!);
      if (one !== undefined) found.set(deliveryKey(one), one);
      return found;
    }
    const docs = await bulkRead<DeliveryDoc>(
      this.container,
      refs.map((r) => ({ id: r.id, partitionKey: r.webhookId })),
      true,
    );
    for (const doc of docs.values()) if (doc.docType === "delivery") found.set(deliveryKey(doc), toDelivery(doc));
    return found;
  }

  async replaceIfUnchanged(delivery: StoredDelivery, etag: string): Promise<string | undefined> {
    try {
      const { etag: next } = await this.container
        .item(delivery.id, delivery.webhookId)
        .replace(toDoc(withoutEtag(delivery)), { accessCondition: { type: "IfMatch", condition: etag } });
      return next ?? "";
    } catch (error) {
      if (isPreconditionFailed(error) || isNotFound(error)) return undefined;
      throw error;
    }
  }

  async update(
    ref: DeliveryRef,
    change: (current: StoredDelivery) => StoredDelivery | undefined,
  ): Promise<StoredDelivery | undefined> {
    const stored = await updateDocument<DeliveryDoc>(
      this.container,
      { id: ref.id, partitionKey: ref.webhookId, what: `Delivery '${ref.id}'` },
      () => this.read(ref),
      (doc) => {
        const next = change(toDelivery(doc));
        return next === undefined ? undefined : toDoc(withoutEtag(next));
      },
    );
    return stored === undefined ? undefined : toDelivery(stored);
  }

  async list(
    webhookId: string,
    filter: { status?: DeliveryStatus; event?: DeliveryEventName },
    request: PageRequest,
  ): Promise<CursorPage<StoredDelivery>> {
    const { where, parameters } = equalityFilters({ webhookId, status: filter.status, event: filter.event });
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

  private read(ref: DeliveryRef): Promise<DeliveryDoc | undefined> {
    return readDocument<DeliveryDoc>(this.container, ref.id, ref.webhookId, (doc) => doc.docType === "delivery");
  }
}
