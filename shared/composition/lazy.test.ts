import { describe, expect, it } from "vitest";
import { onceUntilSuccess } from "./lazy";

describe("onceUntilSuccess (the bootstrap client is ensured once per instance)", () => {
  it("shares one attempt between concurrent callers and does not run again after it succeeded", async () => {
    let runs = 0;
    const ensure = onceUntilSuccess(async () => {
      runs++;
      await new Promise((r) => setTimeout(r, 5));
    });
    await Promise.all([ensure(), ensure(), ensure()]);
    await ensure();
    expect(runs).toBe(1);
  });

  it("tries again on the next call after a failure (a store blip at start-up is not permanent)", async () => {
    let runs = 0;
    const ensure = onceUntilSuccess(async () => {
      runs++;
      if (runs === 1) throw new Error("store unavailable");
    });
    await expect(ensure()).rejects.toThrow("store unavailable");
    await ensure();
    await ensure();
    expect(runs).toBe(2);
  });
});
