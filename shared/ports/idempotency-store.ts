export interface StoredResponse {
  status: number;
  body: unknown;
}

export type IdempotencyBegin =
  /** This caller now owns the key; `owner` proves it to complete, release and renew. */
  | { state: "new"; owner: string }
  | { state: "replay"; response: StoredResponse }
  | { state: "mismatch" }
  | { state: "in-progress" };

/** Idempotency-Key records, shared by every instance, kept 24 hours. */
export interface IdempotencyStore {
  begin(scope: string, key: string, requestHash: string, now: Date): Promise<IdempotencyBegin>;
  /** Stores the final response; false (nothing written) when `owner` no longer holds the key. */
  complete(scope: string, key: string, owner: string, response: StoredResponse, now: Date): Promise<boolean>;
  /** Forgets a key whose request did not reach a final outcome, so a retry runs again; only its owner can. */
  release(scope: string, key: string, owner: string): Promise<void>;
  /** Extends a running request's lease (heartbeat); false when `owner` no longer holds the key. */
  renew(scope: string, key: string, owner: string, now: Date): Promise<boolean>;
}
