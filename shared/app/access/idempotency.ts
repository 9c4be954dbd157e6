import { createHash } from "node:crypto";
import { AppError } from "../../domain/errors";
import type { Clock } from "../../ports/clock";
import type { IdempotencyStore, StoredResponse } from "../../ports/idempotency-store";

const KEY = /^[A-Za-z0-9._:-]{1,255}$/;

/** How often a running request renews its key's lease: a third of the store's lease, so two renewals may fail in a row. */
const HEARTBEAT_MS = 100_000;

/**
 * Runs a request at most once per Idempotency-Key (per client) within 24 h: the same key and body
 * replay the stored response; the same key with another body is 422; while the first runs, 409.
 * Only final outcomes are stored: a success, or a rejection below 500 that is not retryable. After a
 * transient failure (a busy store, a write that lost a race) or an unexpected one the key is released,
 * so the client's retry runs again instead of replaying the failure.
 */
export class Idempotency {
  constructor(
    private readonly store: IdempotencyStore,
    private readonly clock: Clock,
    /** Real time between lease renewals while a request runs; tests shorten it. */
    private readonly heartbeatMs: number = HEARTBEAT_MS,
  ) {}

  async run(
    scope: string,
    key: string | null,
    body: string,
    execute: () => Promise<StoredResponse>,
  ): Promise<StoredResponse & { replayed: boolean }> {
    if (key === null) return { ...(await execute()), replayed: false };
    if (!KEY.test(key)) {
      throw new AppError("INVALID_REQUEST", "Idempotency-Key must be 1-255 letters, digits or . _ : -", {
        details: [{ field: "Idempotency-Key", message: "invalid format" }],
      });
    }
    const hash = createHash("sha256").update(body).digest("hex");
    const begun = await this.store.begin(scope, key, hash, this.clock.now());
    if (begun.state === "replay") return { ...begun.response, replayed: true };
    if (begun.state === "mismatch") {
      throw new AppError("VALIDATION_ERROR", "This Idempotency-Key was used with a different request body", {
        details: [{ field: "Idempotency-Key", message: "reused with a different body" }],
      });
    }
    if (begun.state === "in-progress")
      throw new AppError("CONFLICT", "A request with this Idempotency-Key is still being processed", {
        retryable: true,
      });
    const { owner } = begun;
    // A long import keeps its key: without renewals, a second copy could take it over after the lease.
    const heartbeat = setInterval(
      () => void this.store.renew(scope, key, owner, this.clock.now()).catch(() => undefined),
      this.heartbeatMs,
    );
    heartbeat.unref();
    let response: StoredResponse;
    try {
      response = await execute();
    } catch (error) {
      clearInterval(heartbeat);
      if (error instanceof AppError && error.status < 500 && !error.retryable) {
        const stored = {
          status: error.status,
          body: {
            error: {
              code: error.code,
              message: error.message,
              ...(error.details !== undefined ? { details: error.details } : {}),
            },
          },
        };
        await this.store.complete(scope, key, owner, stored, this.clock.now());
      } else {
        await this.store.release(scope, key, owner).catch(() => undefined);
      }
      throw error;
    }
    clearInterval(heartbeat);
    await this.store.complete(scope, key, owner, response, this.clock.now());
    return { ...response, replayed: false };
  }
}
