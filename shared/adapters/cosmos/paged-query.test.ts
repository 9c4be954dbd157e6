import type { Container, SqlQuerySpec } from "@azure/cosmos";
import { describe, expect, it } from "vitest";
import { pagedQuery } from "./paged-query";

/** A container that records each query's TOP and answers COUNT with `total` and pages with nothing. */
function recordingContainer(total: number): { container: Container; tops: number[]; queries: number } {
  const state = { tops: [] as number[], queries: 0 };
  const container = {
    items: {
      query: (spec: SqlQuerySpec) => ({
        fetchAll: async () => {
          state.queries++;
          if (spec.query.includes("COUNT(1)")) return { resources: [total] };
          const top = spec.parameters?.find((p) => p.name === "@top")?.value;
          state.tops.push(Number(top));
          return { resources: [] };
        },
      }),
    },
  } as unknown as Container;
  return {
    container,
    get tops() {
      return state.tops;
    },
    get queries() {
      return state.queries;
    },
  };
}

const query = { where: [], parameters: [], sortField: "id" };

describe("pagedQuery cost", () => {
  it("reads at most page × pageSize + 1 items for the deepest page number allowed", async () => {
    const rec = recordingContainer(1_000_000);
    await pagedQuery(rec.container, query, { page: 50, pageSize: 200 });
    expect(rec.tops).toEqual([10_001]);
  });

  it("refuses deeper page numbers before reading anything, naming page", async () => {
    const rec = recordingContainer(1_000_000);
    await expect(pagedQuery(rec.container, query, { page: 100, pageSize: 200 })).rejects.toMatchObject({
      code: "INVALID_REQUEST",
      details: [{ field: "page", message: expect.stringContaining("cursor") }],
    });
    expect(rec.queries).toBe(0);
  });

  it("reads one page's worth (pageSize + 1) with a cursor however deep", async () => {
    const rec = recordingContainer(1_000_000);
    const cursor = Buffer.from(JSON.stringify({ after: "zzz-very-deep" })).toString("base64url");
    await pagedQuery(rec.container, query, { cursor, pageSize: 200 });
    expect(rec.tops).toEqual([201]);
  });
});
