import { describe, expect, it } from "vitest";
import { sameContent } from "./bulk";

describe("sameContent", () => {
  it("compares data deeply, whatever the key order, ignoring bookkeeping and system fields", () => {
    const stored = {
      id: "a",
      _etag: "x",
      _ts: 1,
      name: "A",
      nested: { b: 2, a: [1, { c: 3 }] },
      updatedAt: "2024-01-01T00:00:00Z",
    };
    expect(
      sameContent(stored, {
        nested: { a: [1, { c: 3 }], b: 2 },
        name: "A",
        id: "a",
        updatedAt: "2025-01-01T00:00:00Z",
        extra: undefined,
      }),
    ).toBe(true);
    expect(sameContent(stored, { id: "a", name: "A", nested: { b: 2, a: [1, { c: 4 }] } })).toBe(false);
    expect(sameContent(stored, { id: "a", name: "A", nested: { b: 2, a: [{ c: 3 }, 1] } })).toBe(false);
    expect(sameContent({ id: "a", v: null }, { id: "a" })).toBe(false);
  });
});
