import { describe, expect, it } from "vitest";
import type { Holding } from "../../domain/valuation";
import { ValuationChunkCache } from "./valuation-chunk-cache";

const holding = (securityId: string): Holding =>
  ({ securityId, quantity: 1, marketValue: 10, unvalued: null, fxPivot: null }) as unknown as Holding;

describe("ValuationChunkCache", () => {
  it("gives back what was stored, frozen, so no reader can change what another reads", () => {
    const cache = new ValuationChunkCache(10);
    cache.set("p|val|2026-01-02|run|0", [holding("a"), holding("b")]);
    const got = cache.get("p|val|2026-01-02|run|0");
    expect(got?.map((h) => h.securityId)).toEqual(["a", "b"]);
    expect(Object.isFrozen(got)).toBe(true);
    expect(() => {
      (got?.[0] as { quantity: number }).quantity = 2;
    }).toThrow(TypeError);
  });

  it("keeps at most its number of holdings, dropping the least recently read chunk", () => {
    const cache = new ValuationChunkCache(4);
    cache.set("one", [holding("a"), holding("b")]);
    cache.set("two", [holding("c"), holding("d")]);
    cache.get("one");
    cache.set("three", [holding("e"), holding("f")]);
    expect(cache.get("one")).toBeDefined();
    expect(cache.get("two")).toBeUndefined();
    expect(cache.get("three")).toBeDefined();
    // A chunk larger than the whole cache is answered, never kept.
    expect(cache.set("big", [holding("g"), holding("h"), holding("i"), holding("j"), holding("k")])).toHaveLength(5);
    expect(cache.get("big")).toBeUndefined();
  });
});
