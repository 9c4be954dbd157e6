import type { Container } from "@azure/cosmos";
import { AppError } from "../../domain/errors";
import type { Page } from "../../domain/pagination";
import type { StoredWebhook } from "../../domain/webhook";
import type { WebhookRepository } from "../../ports/webhook-repository";
import { readDocument, updateDocument } from "./conditional-update";
import { isConflict, isNotFound, stripSystem } from "./cosmos-errors";
import { pagedQuery } from "./paged-query";

const KIND = "webhook";

interface WebhookDoc extends StoredWebhook {
  kind: typeof KIND;
}

const toStored = (doc: WebhookDoc): StoredWebhook => {
  const { kind: _kind, ...rest } = stripSystem(doc);
  return rest;
};

const toDoc = (webhook: StoredWebhook): WebhookDoc => ({ ...webhook, kind: KIND });

/** Webhooks in the `settings` container (partition /kind = "webhook"); secrets arrive sealed. */
export class CosmosWebhookRepository implements WebhookRepository {
  constructor(private readonly container: Container) {}

  async get(id: string): Promise<StoredWebhook | undefined> {
    const doc = await this.read(id);
    return doc === undefined ? undefined : toStored(doc);
  }

  async create(webhook: StoredWebhook): Promise<void> {
    try {
      await this.container.items.create(toDoc(webhook));
    } catch (error) {
      if (isConflict(error)) throw new AppError("CONFLICT", `Webhook '${webhook.id}' already exists`);
      throw error;
    }
  }

  async update(id: string, change: (current: StoredWebhook) => StoredWebhook | undefined): Promise<StoredWebhook | undefined> {
    const stored = await updateDocument<WebhookDoc>(
      this.container,
      { id, partitionKey: KIND, what: `Webhook '${id}'` },
      () => this.read(id),
      (doc) => {
        const next = change(toStored(doc));
        return next === undefined ? undefined : toDoc(next);
      },
    );
    return stored === undefined ? undefined : toStored(stored);
  }

  async delete(id: string): Promise<boolean> {
    try {
      await this.container.item(id, KIND).delete();
      return true;
    } catch (error) {
      if (isNotFound(error)) return false;
      throw error;
    }
  }

  async list(page: number, pageSize: number): Promise<Page<StoredWebhook>> {
    const result = await pagedQuery<WebhookDoc>(this.container, { where: ["c.kind = @kind"], parameters: [{ name: "@kind", value: KIND }], sortField: "id", partitionKey: KIND }, { page, pageSize });
    return { items: result.items.map(toStored), totalItems: result.totalItems };
  }

  async all(): Promise<StoredWebhook[]> {
    const { resources } = await this.container.items
      .query<WebhookDoc>({ query: "SELECT * FROM c WHERE c.kind = @kind", parameters: [{ name: "@kind", value: KIND }] }, { partitionKey: KIND })
      .fetchAll();
    return resources.map(toStored);
  }

  private read(id: string): Promise<WebhookDoc | undefined> {
    return readDocument<WebhookDoc>(this.container, id, KIND);
  }
}
