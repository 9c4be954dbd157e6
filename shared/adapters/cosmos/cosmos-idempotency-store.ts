import { randomUUID } from "node:crypto";
import type { Container } from "@azure/cosmos";
import type { IdempotencyBegin, IdempotencyStore, StoredResponse } from "../../ports/idempotency-store";
import { isConflict, isNotFound, isPreconditionFailed } from "./cosmos-errors";
import { AGAIN, CONFLICTS, retry } from "./retry";

interface IdempotencyDoc {
  id: string;
  key: string;
  kind: "idempotency";
  requestHash: string;
  state: "running" | "done";
  /** Who runs the request: only this token completes, releases or renews the key. */
  owner: string;
  response?: StoredResponse;
  startedAt: string;
  /** A running request's lease; its owner renews it while it runs (heartbeat). */
  leaseUntil?: string;
  expiresAt: string;
  /** Seconds Cosmos DB keeps the record after this write: until `expiresAt`, and a minute more. */
  ttl: number;
  _etag?: string;
}

const DAY_MS = 86_400_000;
/**
 * A request still "running" whose lease ran out died with its instance; its key may be taken over. A
 * live request renews its lease well before then (see Idempotency), however long it runs.
 */
export const LEASE_MS = 5 * 60_000;

/**
 * Idempotency records in the `counters` container (partition /key). Each write sets the record's time
 * to live to its expiry, so Cosmos DB deletes it 24 h after its last use; until then `expiresAt` decides.
 */
export class CosmosIdempotencyStore implements IdempotencyStore {
  constructor(private readonly container: Container) {}

  async begin(scope: string, key: string, requestHash: string, now: Date): Promise<IdempotencyBegin> {
    const id = docKey(scope, key);
    const owner = randomUUID();
    const fresh: IdempotencyDoc = {
      id,
      key: id,
      kind: "idempotency",
      requestHash,
      state: "running",
      owner,
      startedAt: now.toISOString(),
      leaseUntil: new Date(now.getTime() + LEASE_MS).toISOString(),
      expiresAt: new Date(now.getTime() + DAY_MS).toISOString(),
      ttl: ttlUntil(now.getTime() + DAY_MS, now),
    };
    try {
      await this.container.items.create(fresh);
      return { state: "new", owner };
    } catch (error) {
      if (!isConflict(error)) throw error;
    }
    const existing = await this.read(id);
    if (existing === undefined) {
      // Released or purged since our create failed: one more create, and a loser of that race waits.
      try {
        await this.container.items.create(fresh);
        return { state: "new", owner };
      } catch (error) {
        if (!isConflict(error)) throw error;
        return { state: "in-progress" };
      }
    }
    const expired = existing.expiresAt < now.toISOString();
    if (!expired) {
      if (existing.requestHash !== requestHash) return { state: "mismatch" };
      if (existing.state === "done" && existing.response !== undefined)
        return { state: "replay", response: existing.response };
    }
    const leaseEnd = existing.leaseUntil ?? new Date(Date.parse(existing.startedAt) + LEASE_MS).toISOString();
    if (expired || (existing.state === "running" && leaseEnd < now.toISOString())) {
      // Taken over only if nobody wrote the record since we read it: of two takers, exactly one wins.
      if (await this.replaceIf(existing, fresh)) return { state: "new", owner };
    }
    return { state: "in-progress" };
  }

  async complete(scope: string, key: string, owner: string, response: StoredResponse, now: Date): Promise<boolean> {
    return this.asOwner(docKey(scope, key), owner, (current) => {
      const { leaseUntil: _lease, ...rest } = current;
      return {
        ...rest,
        state: "done",
        response,
        expiresAt: new Date(now.getTime() + DAY_MS).toISOString(),
        ttl: ttlUntil(now.getTime() + DAY_MS, now),
      };
    });
  }

  async renew(scope: string, key: string, owner: string, now: Date): Promise<boolean> {
    return this.asOwner(docKey(scope, key), owner, (current) =>
      current.state === "running"
        ? {
            ...current,
            leaseUntil: new Date(now.getTime() + LEASE_MS).toISOString(),
            ttl: ttlUntil(Date.parse(current.expiresAt), now),
          }
        : undefined,
    );
  }

  async release(scope: string, key: string, owner: string): Promise<void> {
    const id = docKey(scope, key);
    // Losing every race means the owner keeps writing it; the record then expires with its lease.
    await retry(
      CONFLICTS,
      async () => {
        const existing = await this.read(id);
        if (existing === undefined || existing.owner !== owner) return;
        try {
          await this.container
            .item(id, id)
            .delete({ accessCondition: { type: "IfMatch", condition: existing._etag ?? "" } });
          return;
        } catch (error) {
          if (isNotFound(error)) return;
          if (isPreconditionFailed(error)) return AGAIN;
          throw error;
        }
      },
      () => undefined,
    );
  }

  /** Writes `change(current)` only while `owner` holds the key, conditional on the version read. */
  private async asOwner(
    id: string,
    owner: string,
    change: (current: IdempotencyDoc) => IdempotencyDoc | undefined,
  ): Promise<boolean> {
    return retry(
      CONFLICTS,
      async () => {
        const existing = await this.read(id);
        if (existing === undefined || existing.owner !== owner) return false;
        const next = change(existing);
        if (next === undefined) return false;
        return (await this.replaceIf(existing, next)) ? true : AGAIN;
      },
      () => false,
    );
  }

  private async replaceIf(existing: IdempotencyDoc, next: IdempotencyDoc): Promise<boolean> {
    const { _etag: _e, ...body } = next;
    try {
      await this.container
        .item(existing.id, existing.id)
        .replace(body, { accessCondition: { type: "IfMatch", condition: existing._etag ?? "" } });
      return true;
    } catch (error) {
      if (isPreconditionFailed(error) || isNotFound(error)) return false;
      throw error;
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

/** A time to live (from this write) that outlasts `expiresAtMs` by a minute. */
const ttlUntil = (expiresAtMs: number, now: Date): number =>
  Math.max(60, Math.ceil((expiresAtMs - now.getTime()) / 1000) + 60);
