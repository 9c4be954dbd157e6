import { describe, expect, it } from "vitest";
import { fileNameProblem, renderFileName } from "./export-file-name";

const context = { exportId: "ex_1", dataType: "holdings", format: "csv", scheduledFor: new Date("2026-03-29T06:30:00Z"), timezone: "Europe/London" };

describe("file name tokens", () => {
  it("renders every token in the export's time zone", () => {
    expect(renderFileName("{dataType}_{date:yyyyMMdd}_{time:HHmm}.{format}", context)).toBe("holdings_20260329_0730.csv");
    expect(renderFileName("{exportId}-{date:yyyy-MM-dd}-{date}-{time}.{format}", context)).toBe("ex_1-2026-03-29-20260329-073000.csv");
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
});
