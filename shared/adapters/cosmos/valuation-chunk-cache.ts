import { LRUCache } from "lru-cache";
import type { Holding } from "../../domain/valuation";

/** Holdings kept at most (about 20 MB of heap): the recent valuations of a few large portfolios. */
const MAX_HOLDINGS = 50_000;

/**
 * A valuation's holdings chunks, as read. A chunk's id names the computation that wrote it (a run id no
 * other computation shares) and a chunk is never rewritten, so a cached chunk is always what is stored:
 * nothing ever needs invalidating. A holdings read still reads the header every time (which computation
 * is current, or was at `asAt`); only the chunks it names — most of the bytes, ~300 KB per 1,000
 * holdings, and most of the request units — come from here once read.
 *
 * Bounded by holdings rather than entries; the holdings are frozen, so no reader can change another's.
 */
export class ValuationChunkCache {
  private readonly chunks: LRUCache<string, readonly Holding[]>;

  constructor(maxHoldings = MAX_HOLDINGS) {
    this.chunks = new LRUCache({ maxSize: maxHoldings, sizeCalculation: (holdings) => Math.max(1, holdings.length) });
  }

  get(key: string): readonly Holding[] | undefined {
    return this.chunks.get(key);
  }

  /** Stores a chunk's holdings (frozen) and gives them back. */
  set(key: string, holdings: Holding[]): readonly Holding[] {
    for (const h of holdings) Object.freeze(h);
    const frozen = Object.freeze(holdings);
    this.chunks.set(key, frozen);
    return frozen;
  }
}
