import { describe, expect, it } from "vitest";
import { Slots } from "./concurrency";

describe("Slots", () => {
  it("gives out at most its limit at once, refuses beyond it, and takes each back once", () => {
    const slots = new Slots(2);
    const a = slots.tryAcquire();
    const b = slots.tryAcquire();
    expect(a).toBeTypeOf("function");
    expect(b).toBeTypeOf("function");
    expect(slots.tryAcquire()).toBeUndefined();
    a?.();
    a?.();
    const c = slots.tryAcquire();
    expect(c).toBeTypeOf("function");
    expect(slots.tryAcquire()).toBeUndefined();
    b?.();
    c?.();
    expect([slots.tryAcquire(), slots.tryAcquire(), slots.tryAcquire()].map((r) => r !== undefined)).toEqual([
      true,
      true,
      false,
    ]);
  });
});
