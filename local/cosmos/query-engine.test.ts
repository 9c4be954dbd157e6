import query from "@zeit/cosmosdb-query";
import { describe, expect, it } from "vitest";

/** Documents as the stand-in hands them to the engine (every one has a `_rid`). */
const docs = Array.from({ length: 300 }, (_, i) => ({
  id: `d${String(i).padStart(3, "0")}`,
  _rid: `r${String(i).padStart(5, "0")}`,
  securityId: `s${i % 7}`,
  docType: i % 5 === 0 ? "latest" : "price",
  date: `2024-01-${String((i % 28) + 1).padStart(2, "0")}`,
  memberIds: i % 3 === 0 ? [`m${i % 4}`, `m${(i + 1) % 4}`] : [],
}));

const run = (sql: string, parameters: { name: string; value: unknown }[] = []): unknown[] =>
  (query(sql).exec(docs, { parameters }) as { result: unknown[] }).result;

describe("@zeit/cosmosdb-query as patched (patches/@zeit+cosmosdb-query+0.7.2.patch)", () => {
  it("compiles FROM and JOIN without copying the accumulator per document", () => {
    for (const sql of [
      "SELECT * FROM c",
      "SELECT c.id, m FROM c JOIN m IN c.memberIds",
      "SELECT f.id, x FROM f JOIN f.memberIds x",
    ]) {
      expect(query(sql).code).not.toContain("[...$");
    }
  });

  it("FROM c with a filter keeps every matching document, in storage order", () => {
    const rows = run("SELECT * FROM c WHERE c.securityId = @s", [{ name: "@s", value: "s3" }]);
    expect(rows).toEqual(docs.filter((d) => d.securityId === "s3"));
  });

  it("JOIN over an array yields one row per element", () => {
    const rows = run("SELECT c.id, m FROM c JOIN m IN c.memberIds");
    expect(rows).toEqual(docs.flatMap((d) => d.memberIds.map((m) => ({ id: d.id, m }))));
  });

  it("JOIN on a property keeps documents that have it", () => {
    const rows = run("SELECT f.id, x FROM f JOIN f.memberIds x WHERE f.securityId = 's1'");
    expect(rows).toEqual(docs.filter((d) => d.securityId === "s1").map((d) => ({ id: d.id, x: d.memberIds })));
  });

  it("EXISTS over a subquery", () => {
    const rows = run(
      "SELECT VALUE c.id FROM c WHERE EXISTS(SELECT VALUE m FROM m IN c.memberIds WHERE ARRAY_CONTAINS(@ids, m))",
      [{ name: "@ids", value: ["m2"] }],
    );
    expect(rows).toEqual(docs.filter((d) => d.memberIds.includes("m2")).map((d) => d.id));
  });

  it("TOP with ORDER BY, and COUNT", () => {
    const top = run(
      "SELECT TOP 1 * FROM c WHERE c.securityId = @s AND c.docType = 'price' AND c.date <= @d ORDER BY c.id DESC",
      [
        { name: "@s", value: "s2" },
        { name: "@d", value: "2024-01-10" },
      ],
    );
    const expected = docs
      .filter((d) => d.securityId === "s2" && d.docType === "price" && d.date <= "2024-01-10")
      .sort((a, b) => (a.id < b.id ? 1 : -1))[0];
    expect(top).toEqual([expected]);
    expect(run("SELECT VALUE COUNT(1) FROM c WHERE c.securityId = 's2'")).toEqual([
      docs.filter((d) => d.securityId === "s2").length,
    ]);
  });

  it("a result with many rows keeps them all (undefined array elements still dropped)", () => {
    expect(run("SELECT VALUE c.id FROM c")).toHaveLength(docs.length);
    expect(run("SELECT VALUE [c.id, c.missing] FROM c WHERE c.id = 'd001'")).toEqual([["d001"]]);
  });
});
