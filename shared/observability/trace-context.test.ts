import { describe, expect, it } from "vitest";
import {
  currentTraceId,
  currentTraceparent,
  newTraceparent,
  parseTraceparent,
  traceIdOf,
  withTraceparent,
} from "./trace-context";

const A = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
const B = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00";

/** Without Application Insights (OpenTelemetry's API is a no-op), the context is kept in our own AsyncLocalStorage. */
describe("trace context (telemetry off)", () => {
  it("accepts W3C traceparents of version 00 only, with non-zero ids", () => {
    expect(parseTraceparent(A)).toBe(A);
    expect(parseTraceparent(A.toUpperCase())).toBe(A);
    expect(parseTraceparent(` ${B} `)).toBe(B);
    for (const bad of [
      undefined,
      42,
      "",
      "garbage",
      `01${A.slice(2)}`,
      `00-${"0".repeat(32)}-b7ad6b7169203331-01`,
      `00-0af7651916cd43dd8448eb211c80319c-${"0".repeat(16)}-01`,
      `${A}-extra`,
    ]) {
      expect(parseTraceparent(bad)).toBeUndefined();
    }
    expect(traceIdOf(A)).toBe("0af7651916cd43dd8448eb211c80319c");
    expect(parseTraceparent(newTraceparent())).toBeDefined();
    expect(newTraceparent()).not.toBe(newTraceparent());
  });

  it("is the one `withTraceparent` set, across awaits and timers, and nothing outside it", async () => {
    expect(currentTraceparent()).toBeUndefined();
    const seen = await withTraceparent(A, async () => {
      await new Promise((r) => setTimeout(r, 5));
      const inner = await withTraceparent(B, () => Promise.resolve(currentTraceparent()));
      return [currentTraceparent(), inner, currentTraceId()];
    });
    expect(seen).toEqual([A, B, traceIdOf(A)]);
    expect(currentTraceparent()).toBeUndefined();
  });

  it("leaves the current context as it is for an absent or invalid traceparent", () => {
    expect(
      withTraceparent(A, () =>
        withTraceparent("not-a-traceparent", () => withTraceparent(undefined, currentTraceparent)),
      ),
    ).toBe(A);
  });
});
