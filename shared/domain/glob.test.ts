import { describe, expect, it } from "vitest";
import { compileFilePattern } from "./feed-file-pattern";
import { compileGlob, type GlobMeter } from "./glob";

const dashes = (n: number): string => "-".repeat(n);

describe("file-name globs", () => {
  it.each([
    ["positions_*.csv", "positions_20240328.csv", true],
    ["positions_*.csv", "positions_.csv", true],
    ["positions_*.csv", "positions_1.csv.tmp", false],
    ["NAV_????????.xml", "NAV_20240328.xml", true],
    ["NAV_????????.xml", "NAV_2024032.xml", false],
    ["*.{csv,txt}", "a.txt", true],
    ["*.{csv,txt}", "a.xml", false],
    ["{a,{b,c}}.csv", "c.csv", true],
    ["{a,b}{c,d}", "bd", true],
    ["{a,*}", "zz", true],
    ["{,x}y.csv", "y.csv", true],
    ["[a-c].csv", "b.csv", true],
    ["[a-c].csv", "d.csv", false],
    ["[!a].csv", "b.csv", true],
    ["[!a].csv", "a.csv", false],
    ["[^a].csv", "a.csv", false],
    ["[]a].csv", "].csv", true],
    ["[a-].csv", "-.csv", true],
    ["[[:digit:]]-x.csv", "7-x.csv", true],
    ["[[:digit:]]-x.csv", "a-x.csv", false],
    ["[z-a].csv", "b.csv", false],
    ["a**b", "axxb", true],
    ["*.CSV", "x.csv", false],
    ["?", "é", true],
    ["?.csv", "😀.csv", true],
    // Not sets or alternations: literal characters.
    ["{a}.csv", "{a}.csv", true],
    ["{a}.csv", "a.csv", false],
    ["a{b", "a{b", true],
    ["{a,b", "{a,b", true],
    ["a[b", "a[b", true],
    ["+(a).csv", "+(a).csv", true],
    ["a|b$^", "a|b$^", true],
    // A leading dot only where the pattern spells it.
    ["*.csv", ".hidden.csv", false],
    ["?hidden.csv", ".hidden.csv", false],
    ["[!x]hidden.csv", ".hidden.csv", false],
    [".*.csv", ".hidden.csv", true],
    ["{.a,b}", ".a", true],
    ["*", "a\u2028b", true],
  ])("%s against %s: %s", (pattern, name, expected) => {
    expect(compileGlob(pattern)(name)).toBe(expected);
  });

  it("a name with a / never matches a feed's pattern", () => {
    expect(compileFilePattern("*")("x/positions_1.csv")).toBe(false);
  });

  it("matching costs linear work in the name's length, even for patterns that make regular expressions backtrack", () => {
    const adversarial = [
      "*-*-*-*-*.csv",
      "*-*-*-*-*-*-*-*-*-*-*-*-*-*-*-*-*-*-*-*-*-*-*-*-*-*-*-*-*-*-*-*-*-*-*.csv",
      "{*,*-}{*,*-}{*,*-}{*,*-}{*,*-}{*,*-}{*,*-}.csv",
      "*{-,--,---}*{-,--,---}*{-,--,---}*x",
      "*[-]*[!x]*?*-*?*.csv",
    ];
    for (const pattern of adversarial) {
      const matches = compileFilePattern(pattern);
      const work = (n: number): number => {
        const meter: GlobMeter = { steps: 0 };
        expect(matches(dashes(n), meter), pattern).toBe(false);
        return meter.steps;
      };
      const short = work(255);
      const long = work(1024);
      // Bounded by (states of the pattern) per character, and growing with the name, not exploding.
      expect(long, pattern).toBeLessThanOrEqual(10 * 1025 * (pattern.length + 1));
      expect(long / short, pattern).toBeLessThan(4.5);
    }
  });

  it("a long name that does match is found in one pass", () => {
    const meter: GlobMeter = { steps: 0 };
    expect(compileFilePattern("*-*-*-*-*.csv")(`${dashes(1020)}.csv`, meter)).toBe(true);
    expect(meter.steps).toBeLessThanOrEqual(10 * 1025 * 14);
  });
});
