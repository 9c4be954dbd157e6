import { describe, expect, it } from "vitest";
import { isoDate } from "./dates";
import {
  decimalPlaces,
  findUnstorable,
  mayHoldUnstorableUtf8,
  printable,
  unstorableIn,
  withinMaxDecimals,
} from "./storable";

describe("unstorableIn", () => {
  it("names NUL, an unpaired surrogate and a noncharacter of any plane; passes paired surrogates and ordinary text", () => {
    expect(unstorableIn("a\u0000b")).toBe("contains U+0000 (NUL) at character 2, which no store can hold");
    expect(unstorableIn("\ud800")).toMatch(/unpaired surrogate \(U\+D800\)/);
    expect(unstorableIn("x\udc00")).toMatch(/unpaired surrogate \(U\+DC00\) at character 2/);
    for (const c of ["\ufdd0", "\ufdef", "\ufffe", "\uffff", "\u{1fffe}", "\u{10ffff}"])
      expect(unstorableIn(`a${c}`), c.codePointAt(0)?.toString(16)).toMatch(/noncharacter U\+[0-9A-F]{4,6}/);
    for (const ok of ["", "Müller & Cie", "😀 emoji", "\u2028", "\ufdcf\ufdf0\ufffd", "\t\n"])
      expect(unstorableIn(ok)).toBeUndefined();
  });

  it("writes what it cannot store as escapes for a message", () => {
    expect(printable("a\u0000b\ufffe")).toBe("a\\u{0}b\\u{fffe}");
    expect(printable("plain")).toBe("plain");
  });
});

describe("findUnstorable and the JSON pre-scan", () => {
  it("names each value and key by its path, as validation details do", () => {
    const body = JSON.parse(
      '{"prices":[{"source":"ok"},{"source":"a\\u0000"}],"mapping":{"isin":{"map":{"\\ud800":"x"}}}}',
    );
    expect(findUnstorable(body)).toEqual([
      { field: "prices[1].source", message: expect.stringMatching(/U\+0000/) },
      {
        field: "mapping.isin.map.\\u{d800}",
        message: expect.stringMatching(/^the key contains an unpaired surrogate/),
      },
    ]);
    expect(findUnstorable({ a: [1, true, null, "fine"] })).toEqual([]);
  });

  it("lets a clean document skip the walk and catches every escape or character that may be unstorable", () => {
    const may = (text: string): boolean => mayHoldUnstorableUtf8(Buffer.from(text));
    // Text of any script, emoji, and escapes of ordinary characters are let through without a walk.
    expect(may('{"name":"Müller & Cie € 株式 😀","n":1,"city":"Z\\u00fcrich","e":"\\ud83d"}')).toBe(true);
    expect(may('{"name":"Müller & Cie € 株式 😀","n":1,"city":"Z\\u00fcrich"}')).toBe(false);
    for (const text of [
      '"\\u0000"',
      '"\\ud800"',
      '"\\uDFFF"',
      '"\\ufdd0"',
      '"\\uFFFE"',
      '"\\uffff"',
      '"\ufffe"',
      '"\ufdef"',
      '"\u{10ffff}"',
    ])
      expect(may(text), text).toBe(true);
  });

  it("finds an astral noncharacter, skips paired surrogates, and writes escapes for each", () => {
    expect(unstorableIn("😀 and \u{1fffe}")).toBe(
      "contains the Unicode noncharacter U+1FFFE at character 8, which is not for interchange",
    );
    expect(printable("😀\u{1fffe}\ud800x")).toBe("😀\\u{1fffe}\\u{d800}x");
  });
});

describe("decimalPlaces and withinMaxDecimals", () => {
  it("agree on random numbers of 0 to 16 places and their neighbours one step away", () => {
    const disagree: number[] = [];
    for (let i = 0; i < 50_000; i++) {
      const n = Number((Math.random() * 10 ** (Math.floor(Math.random() * 10) - 3)).toFixed(i % 17));
      for (const v of [n, n + Number.EPSILON * n, n - Number.EPSILON * n])
        if (withinMaxDecimals(v) !== decimalPlaces(v) <= 12) disagree.push(v);
    }
    expect(disagree).toEqual([]);
  });

  it("counts the places a number is written with, in its shortest form", () => {
    expect([0, 12, 0.1, 123.45, 1e-12, 1.5e-29, 5e-324, 0.1234567890123, 0.123456789012].map(decimalPlaces)).toEqual([
      0, 0, 1, 2, 12, 30, 324, 13, 12,
    ]);
  });
});

describe("isoDate", () => {
  it("holds 0001-01-01 to 9999-12-31, the dates every store can hold", () => {
    expect(isoDate.safeParse("0001-01-01").success).toBe(true);
    expect(isoDate.safeParse("9999-12-31").success).toBe(true);
    expect(isoDate.safeParse("0000-01-01").error?.issues[0]?.message).toBe(
      "must be a date from 0001-01-01 to 9999-12-31",
    );
  });
});
