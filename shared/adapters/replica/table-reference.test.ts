import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { analyticsViews } from "../../domain/replica/analytics-views";
import { biTables } from "../../domain/replica/versions-tables";
import { catalogText, expectedDescriptions } from "./replica-descriptions";
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

  it("the catalogue's descriptions are the reference's words (one source): every table (versions too), view, function and their columns", () => {
    const reference = tableReference();
    const described = new Map(expectedDescriptions().map((d) => [`${d.object}.${d.column ?? ""}`, d.text]));
    for (const table of biTables) {
      expect(described.get(`${table.name}.`)).toBe(catalogText(table.description));
      for (const column of table.columns) {
        expect(described.get(`${table.name}.${column.name}`)).toBe(catalogText(column.description));
        expect(reference).toContain(` | ${column.description} |`);
      }
    }
    for (const view of analyticsViews) {
      expect(described.get(`${view.name}.`)).toBe(catalogText(view.description));
      expect(reference).toContain(view.description);
    }
    expect(reference).toContain("Foreign keys (declared, not enforced): `portfolio_id` → `portfolios.id`");
    expect(described.get("positions_versions.recorded_to")).toBeDefined();
  });
});
