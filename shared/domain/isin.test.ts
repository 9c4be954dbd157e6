import { describe, expect, it } from "vitest";
import { isinCheckDigit, isinSchema, isValidIsin } from "./isin";

describe("ISIN", () => {
  it.each(["US0378331005", "GB0002634946", "DE000BAY0017", "DE0007164600", "XS2314659447"])(
    "accepts the real ISIN %s",
    (isin) => {
      expect(isValidIsin(isin)).toBe(true);
      expect(isinCheckDigit(isin.slice(0, 11))).toBe(Number(isin[11]));
    },
  );

  it("rejects a wrong check digit and a wrong format, with one message each", () => {
    expect(isValidIsin("US0378331004")).toBe(false);
    expect(isinSchema.safeParse("US0378331004").error?.issues.map((i) => i.message)).toEqual([
      "ISIN check digit is wrong",
    ]);
    expect(isinSchema.safeParse("us0378331005").error?.issues).toHaveLength(1);
    expect(isinSchema.safeParse("US037833100").error?.issues).toHaveLength(1);
  });
});
