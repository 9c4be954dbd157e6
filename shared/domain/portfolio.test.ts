import { describe, expect, it } from "vitest";
import { canTransition, portfolioCreateSchema } from "./portfolio";

describe("portfolio status transitions", () => {
  it.each([
    ["active", "inactive", true],
    ["inactive", "active", true],
    ["active", "archived", true],
    ["inactive", "archived", true],
    ["archived", "active", false],
    ["archived", "inactive", false],
    ["archived", "archived", false],
    ["active", "active", true],
  ] as const)("%s → %s is %s", (from, to, allowed) => {
    expect(canTransition(from, to)).toBe(allowed);
  });
});

describe("portfolioCreateSchema", () => {
  it("accepts ISO 4217 codes only", () => {
    const base = { name: "A", code: "A-1", clientId: "c" };
    expect(portfolioCreateSchema.safeParse({ ...base, baseCurrency: "CHF" }).success).toBe(true);
    expect(portfolioCreateSchema.safeParse({ ...base, baseCurrency: "XAU" }).success).toBe(true);
    expect(portfolioCreateSchema.safeParse({ ...base, baseCurrency: "chf" }).success).toBe(false);
    expect(portfolioCreateSchema.safeParse({ ...base, baseCurrency: "ABC" }).success).toBe(false);
  });
});
