import type { Container } from "@azure/cosmos";
import type { IdempotencyBegin, IdempotencyStore, StoredResponse } from "../../ports/idempotency-store";
import { isConflict, isNotFound, isPreconditionFailed } from "./cosmos-errors";

interface IdempotencyDoc {
  id: string;
  key: string;
  kind: "idempotency";
  requestHash: string;
  state: "running" | "done";
  response?: StoredResponse;
  startedAt: string;
  expiresAt: string;
  _etag?: string;
}

const DAY_MS = 86_400_000;
/** A request still "running" after this long died with its instance; its key may be taken over. */
const LEASE_MS = 5 * 60_000;

/** Idempotency records in the `counters` container (partition /key), purged after 24 h by the purge timer. */
export class CosmosIdempotencyStore implements IdempotencyStore {
  constructor(private readonly container: Container) {}

  async begin(scope: string, key: string, requestHash: string, now: Date): Promise<IdempotencyBegin> {
    const id = docKey(scope, key);
    const fresh: IdempotencyDoc = {
      id,
      key: id,
      kind: "idempotency",
      requestHash,
      state: "running",
      startedAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + DAY_MS).toISOString(),
    };
    try {
      await this.container.items.create(fresh);
      return { state: "new" };
    } catch (error) {
      if (!isConflict(error)) throw error;
    }
    const existing = await this.read(id);
    if (existing === undefined || existing.expiresAt < now.toISOString()) {
      await this.container.items.upsert(fresh);
      return { state: "new" };
    }
    if (existing.requestHash !== requestHash) return { state: "mismatch" };
    if (existing.state === "done" && existing.response !== undefined) return { state: "replay", response: existing.response };
    if (Date.parse(existing.startedAt) + LEASE_MS < now.getTime()) {
      try {
        await this.container.item(id, id).replace(fresh, { accessCondition: { type: "IfMatch", condition: existing._etag ?? "" } });
        return { state: "new" };
      } catch (error) {
        if (!isPreconditionFailed(error)) throw error;
      }
    }
    return { state: "in-progress" };
  }

  async complete(scope: string, key: string, response: StoredResponse, now: Date): Promise<void> {
    const id = docKey(scope, key);
    const existing = await this.read(id);
    const doc: IdempotencyDoc = {
      id,
      key: id,
      kind: "idempotency",
      requestHash: existing?.requestHash ?? "",
      state: "done",
      response,
      startedAt: existing?.startedAt ?? now.toISOString(),
      expiresAt: new Date(now.getTime() + DAY_MS).toISOString(),
    };
    await this.container.items.upsert(doc);
  }

  async release(scope: string, key: string): Promise<void> {
    const id = docKey(scope, key);
    try {
      await this.container.item(id, id).delete();
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }

  private async read(id: string): Promise<IdempotencyDoc | undefined> {
    try {
      const { resource } = await this.container.item(id, id).read<IdempotencyDoc>();
      return resource;
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }
}

const docKey = (scope: string, key: string): string => `idem|${scope}|${key}`;
