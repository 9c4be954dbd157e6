export interface StoredResponse {
  status: number;
  body: unknown;
}

export type IdempotencyBegin =
  | { state: "new" }
  | { state: "replay"; response: StoredResponse }
  | { state: "mismatch" }
  | { state: "in-progress" };

/** Idempotency-Key records, shared by every instance, kept 24 hours. */
export interface IdempotencyStore {
  begin(scope: string, key: string, requestHash: string, now: Date): Promise<IdempotencyBegin>;
  complete(scope: string, key: string, response: StoredResponse, now: Date): Promise<void>;
  /** Forgets a key whose request failed unexpectedly, so a retry runs again. */
  release(scope: string, key: string): Promise<void>;
}
