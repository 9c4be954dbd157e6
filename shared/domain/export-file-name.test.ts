import { describe, expect, it } from "vitest";
import { fileNameProblem, renderedNameProblem, renderFileName } from "./export-file-name";

const context = {
  exportId: "ex_1",
  dataType: "holdings",
  format: "csv",
  scheduledFor: new Date("2026-03-29T06:30:00Z"),
  timezone: "Europe/London",
};

describe("file name tokens", () => {
  it("renders every token in the export's time zone", () => {
    expect(renderFileName("{dataType}_{date:yyyyMMdd}_{time:HHmm}.{format}", context)).toBe(
      "holdings_20260329_0730.csv",
    );
    expect(renderFileName("{exportId}-{date:yyyy-MM-dd}-{date}-{time}.{format}", context)).toBe(
      "ex_1-2026-03-29-20260329-073000.csv",
    );
    expect(renderFileName("fixed.json", context)).toBe("fixed.json");
  });

  it("refuses unsafe names and unknown tokens, naming the problem", () => {
    expect(fileNameProblem("holdings_{date:yyyyMMdd}.csv")).toBeUndefined();
    expect(fileNameProblem("../etc/passwd")).toMatch(/\//);
    expect(fileNameProblem("a..b.csv")).toMatch(/\.\./);
    expect(fileNameProblem("dir/file.csv")).toMatch(/\//);
    expect(fileNameProblem("dir\\file.csv")).toMatch(/\\/);
    expect(fileNameProblem("file\u0000.csv")).toMatch(/control/);
    expect(fileNameProblem("file\n.csv")).toMatch(/control/);
    expect(fileNameProblem("{portfolio}.csv")).toMatch(/unknown token \{portfolio\}/);
    expect(fileNameProblem("{date:yyyy/MM/dd}.csv")).toMatch(/FORMAT/);
    expect(fileNameProblem("{date:'x'}.csv")).toMatch(/FORMAT/);
    expect(fileNameProblem("{format:upper}.csv")).toMatch(/takes no FORMAT/);
    expect(fileNameProblem("{date.csv")).toMatch(/braces/);
    expect(fileNameProblem(".hidden.csv")).toMatch(/dot/);
  });

  it("checks the name as runs render it: FORMATs that render only separators or spaces, and tokens that meet to make .. or a dot at an end", () => {
    expect(fileNameProblem("{date:.}{time:.}")).toMatch(/\{date:\.\} can render "\."/);
    expect(fileNameProblem("{date:.}")).toMatch(/render letters or digits/);
    expect(fileNameProblem("x{time:-}.csv")).toMatch(/render letters or digits/);
    expect(fileNameProblem("{time:QQQQ}.csv")).toMatch(/"1st quarter"/);
    expect(fileNameProblem("{date:yyyy.}{time:.HH}.csv")).toMatch(
      /renders as "2024\.\.\d\d\.csv", which contains \.\./,
    );
    expect(fileNameProblem("x_{time:aaaa}.csv")).toMatch(/which contains \.\./);
    expect(fileNameProblem("{date:yyyy.}")).toMatch(/ends with a dot/);
    expect(fileNameProblem(`${"a".repeat(220)}_{exportId}`)).toMatch(/longer than 230/);
    expect(fileNameProblem("{time:aaaa}_{date:EEEE_MMMM}.{format}")).toBeUndefined();
    expect(fileNameProblem("{dataType}_{date:yyyy-MM-dd}_{time:HHmm}.{format}")).toBeUndefined();
  });

  it("refuses rendered names that are . or .. or would escape a directory", () => {
    for (const name of ["", ".", "..", "a..b", ".x", "x.", " x", "a/b", "a\\b", "a\u0000"])
      expect(renderedNameProblem(name), JSON.stringify(name)).toBeDefined();
    expect(renderedNameProblem("holdings_20261125.csv")).toBeUndefined();
  });
});
