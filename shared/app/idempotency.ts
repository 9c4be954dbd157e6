import { createHash } from "node:crypto";
import { AppError } from "../domain/errors";
import type { Clock } from "../ports/clock";
import type { IdempotencyStore, StoredResponse } from "../ports/idempotency-store";

const KEY = /^[A-Za-z0-9._:-]{1,255}$/;

/**
 * Runs a request at most once per Idempotency-Key (per client) within 24 h: the same key and body
 * replay the stored response; the same key with another body is 422; while the first runs, 409.
 * Responses below 500 are stored; after an unexpected failure the key is released so a retry runs.
 */
export class Idempotency {
  constructor(
    private readonly store: IdempotencyStore,
    private readonly clock: Clock,
  ) {}

  async run(scope: string, key: string | null, body: string, execute: () => Promise<StoredResponse>): Promise<StoredResponse & { replayed: boolean }> {
    if (key === null) return { ...(await execute()), replayed: false };
    if (!KEY.test(key)) {
      throw new AppError("INVALID_REQUEST", "Idempotency-Key must be 1-255 letters, digits or . _ : -", { details: [{ field: "Idempotency-Key", message: "invalid format" }] });
    }
    const hash = createHash("sha256").update(body).digest("hex");
    const begun = await this.store.begin(scope, key, hash, this.clock.now());
    if (begun.state === "replay") return { ...begun.response, replayed: true };
    if (begun.state === "mismatch") {
      throw new AppError("VALIDATION_ERROR", "This Idempotency-Key was used with a different request body", { details: [{ field: "Idempotency-Key", message: "reused with a different body" }] });
    }
    if (begun.state === "in-progress") throw new AppError("CONFLICT", "A request with this Idempotency-Key is still being processed");
    let response: StoredResponse;
    try {
      response = await execute();
    } catch (error) {
      if (error instanceof AppError && error.status < 500) {
        const stored = { status: error.status, body: { error: { code: error.code, message: error.message, ...(error.details !== undefined ? { details: error.details } : {}) } } };
        await this.store.complete(scope, key, stored, this.clock.now());
      } else {
        await this.store.release(scope, key).catch(() => undefined);
      }
      throw error;
    }
    await this.store.complete(scope, key, response, this.clock.now());
    return { ...response, replayed: false };
  }
}
