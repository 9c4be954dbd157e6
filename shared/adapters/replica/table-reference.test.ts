import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { biTables } from "../../domain/replica/versions-tables";
import { tableReference, withTableReference } from "./table-reference";

describe("docs/replica.md's table reference", () => {
  it("is exactly what the table definitions render (run npm run docs:replica after changing them)", () => {
    const page = readFileSync(join(__dirname, "..", "..", "..", "docs", "replica.md"), "utf8");
    expect(withTableReference(page)).toBe(page);
  });

  it("names every table and column of the analytics schema, with both engines' types", () => {
    const reference = tableReference();
    for (const table of biTables) {
      expect(reference).toContain(`### \`analytics.${table.name}\``);
      for (const column of table.columns) expect(reference).toContain(`| \`${column.name}\` |`);
    }
    expect(reference).toContain("`decimal(38, 12)`");
    expect(reference).toContain("`datetime2(3)` / `timestamptz`");
  });
});
