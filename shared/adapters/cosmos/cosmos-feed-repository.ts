import type { Container } from "@azure/cosmos";
import { AppError } from "../../domain/errors";
import type { StoredFeed } from "../../domain/feed";
import type { Page } from "../../domain/pagination";
import type { FeedRepository } from "../../ports/feed-repository";
import { readDocument, updateDocument } from "./conditional-update";
import { isConflict, isNotFound, stripSystem } from "./cosmos-errors";
import { pagedQuery } from "./paged-query";

const KIND = "feed";

interface FeedDoc extends StoredFeed {
  kind: typeof KIND;
}

const toStored = (doc: FeedDoc): StoredFeed => {
  const { kind: _kind, ...rest } = stripSystem(doc);
  return rest;
};

const toDoc = (feed: StoredFeed): FeedDoc => ({ ...feed, kind: KIND });

/** Feeds in the `settings` container (partition /kind = "feed"); the SFTP password arrives hashed. */
export class CosmosFeedRepository implements FeedRepository {
  constructor(private readonly container: Container) {}

  async get(id: string): Promise<StoredFeed | undefined> {
    const doc = await this.read(id);
    return doc === undefined ? undefined : toStored(doc);
  }

  async create(feed: StoredFeed): Promise<void> {
    try {
      await this.container.items.create(toDoc(feed));
    } catch (error) {
      if (isConflict(error)) throw new AppError("CONFLICT", `Feed '${feed.id}' already exists`);
      throw error;
    }
  }

  async update(id: string, change: (current: StoredFeed) => StoredFeed | undefined): Promise<StoredFeed | undefined> {
    const stored = await updateDocument<FeedDoc>(
      this.container,
      { id, partitionKey: KIND, what: `Feed '${id}'` },
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

  async list(page: number, pageSize: number): Promise<Page<StoredFeed>> {
    const result = await pagedQuery<FeedDoc>(this.container, { where: ["c.kind = @kind"], parameters: [{ name: "@kind", value: KIND }], sortField: "id", partitionKey: KIND }, { page, pageSize });
    return { items: result.items.map(toStored), totalItems: result.totalItems };
  }

  private read(id: string): Promise<FeedDoc | undefined> {
    return readDocument<FeedDoc>(this.container, id, KIND);
  }
}
