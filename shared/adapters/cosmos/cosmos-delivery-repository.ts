import { BulkOperationType, type Container, type JSONObject } from "@azure/cosmos";
import type { DeliveryRef, StoredDelivery } from "../../domain/delivery";
import type { CursorPage, PageRequest } from "../../domain/page-request";
import {
  deliveryKey,
  type DeliveryFilter,
  type DeliveryRepository,
  type DueDelivery,
  type VersionedDelivery,
} from "../../ports/delivery-repository";
import { bulkRead, bulkWithRetry } from "./bulk";
import { readDocument, updateDocument } from "./conditional-update";
import { isConflict, isNotFound, isPreconditionFailed } from "./cosmos-errors";
import { DeliveryQueries, toDelivery, toDoc, withoutEtag, type DeliveryDoc } from "./cosmos-delivery-queries";

/** Deliveries in the `deliveries` container (partition /webhookId). */
export class CosmosDeliveryRepository implements DeliveryRepository {
  private readonly queries: DeliveryQueries;

  constructor(private readonly container: Container) {
    this.queries = new DeliveryQueries(container);
  }

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

  list(webhookId: string, filter: DeliveryFilter, request: PageRequest): Promise<CursorPage<StoredDelivery>> {
    return this.queries.list(webhookId, filter, request);
  }

  failedBetween(
    webhookId: string,
    window: { since: string; until: string },
    after: string,
    limit: number,
  ): Promise<VersionedDelivery[]> {
    return this.queries.failedBetween(webhookId, window, after, limit);
  }

  countFailedBetween(webhookId: string, window: { since: string; until: string }): Promise<number> {
    return this.queries.countFailedBetween(webhookId, window);
  }

  pendingOf(webhookId: string, limit: number): Promise<DeliveryRef[]> {
    return this.queries.pendingOf(webhookId, limit);
  }

  overdue(before: string, pageSize: number): AsyncIterable<DueDelivery[]> {
    return this.queries.overdue(before, pageSize);
  }

  private read(ref: DeliveryRef): Promise<DeliveryDoc | undefined> {
    return readDocument<DeliveryDoc>(this.container, ref.id, ref.webhookId, (doc) => doc.docType === "delivery");
  }
}
