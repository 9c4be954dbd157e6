import type { Clock } from "../ports/clock";
import type { CounterStore } from "../ports/counter-store";

/** Deletes expired rate-limit windows and idempotency keys; Cosmos DB TTL is not relied on. */
export class PurgeExpiredCounters {
  constructor(
    private readonly counters: CounterStore,
    private readonly clock: Clock,
  ) {}

  /** Returns how many counters were deleted. */
  execute(): Promise<number> {
    return this.counters.purgeExpired(this.clock.now());
  }
}
