import query from "@zeit/cosmosdb-query";
import { describe, expect, it } from "vitest";
import { installArrayContains, startQuery } from "./array-contains";

const builtins = require("@zeit/cosmosdb-query/lib/builtin-functions") as Record<
  string,
  (...args: unknown[]) => unknown
>;
const engine = builtins["ARRAY_CONTAINS"];

const docs = Array.from({ length: 200 }, (_, i) => ({
  id: `d${i}`,
  _rid: `r${String(i).padStart(5, "0")}`,
  n: i,
  tags: i % 4 === 0 ? [{ k: i % 3 }] : [`s${i % 13}`, i % 11, i % 2 === 0],
  securityIds: Array.from({ length: 12 }, (_, k) => `sec${(i * 12 + k) % 500}`),
}));

const run = (sql: string, parameters: { name: string; value: unknown }[]): unknown[] => {
  startQuery();
  return (query(sql).exec(docs, { parameters }) as { result: unknown[] }).result;
};

const cases: [string, { name: string; value: unknown }[]][] = [
  [
    "SELECT VALUE c.id FROM c WHERE ARRAY_CONTAINS(@ids, c.id)",
    [{ name: "@ids", value: Array.from({ length: 50 }, (_, i) => `d${i * 3}`) }],
  ],
  [
    "SELECT VALUE c.id FROM c WHERE ARRAY_CONTAINS(@ns, c.n)",
    [{ name: "@ns", value: [...Array.from({ length: 20 }, (_, i) => String(i)), 5, 7, null, true] }],
  ],
  [
    "SELECT VALUE c.id FROM c WHERE EXISTS(SELECT VALUE s FROM s IN c.securityIds WHERE ARRAY_CONTAINS(@ids, s))",
    [{ name: "@ids", value: Array.from({ length: 40 }, (_, i) => `sec${i * 7}`) }],
  ],
  [
    "SELECT VALUE c.id FROM c WHERE ARRAY_CONTAINS(@objs, c.tags[0])",
    [{ name: "@objs", value: [{ k: 1 }, ...Array.from({ length: 10 }, (_, i) => `s${i}`)] }],
  ],
  ["SELECT VALUE c.id FROM c WHERE ARRAY_CONTAINS(c.tags, @v)", [{ name: "@v", value: "s3" }]],
  ["SELECT VALUE c.id FROM c WHERE ARRAY_CONTAINS(c.tags, @v, true)", [{ name: "@v", value: { k: 2 } }]],
];

describe("ARRAY_CONTAINS through a Set (local/cosmos/array-contains.ts)", () => {
  it("answers every query exactly as the engine's own function does", () => {
    const before = cases.map(([sql, parameters]) => run(sql, parameters));
    installArrayContains(builtins);
    expect(builtins["ARRAY_CONTAINS"]).not.toBe(engine);
    const after = cases.map(([sql, parameters]) => run(sql, parameters));
    expect(after).toEqual(before);
    expect(before.every((rows) => rows.length > 0)).toBe(true);
    // The number 5 and the string "5" stay apart, as in Cosmos DB.
    expect(
      run("SELECT VALUE c.n FROM c WHERE ARRAY_CONTAINS(@ns, c.n)", [
        { name: "@ns", value: ["5", "6", "7", "8", "9", "10", "11", "12", "13", 4] },
      ]),
    ).toEqual([4]);
  });

  it("sees an array changed between two queries (its Set is not kept from one query to the next)", () => {
    installArrayContains(builtins);
    const ids = Array.from({ length: 20 }, (_, i) => `d${i}`);
    const sql = "SELECT VALUE c.id FROM c WHERE ARRAY_CONTAINS(@ids, c.id)";
    expect(run(sql, [{ name: "@ids", value: ids }])).toHaveLength(20);
    ids.push("d150");
    expect(run(sql, [{ name: "@ids", value: ids }])).toContain("d150");
  });
});
