import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCosmos } from "../../../test/cosmos-stand-in";
import type { Price } from "../../domain/price";
import { CosmosPriceRepository } from "./cosmos-price-repository";

const price = (date: string, value: number, securityId = "sec_A"): Price => ({
  securityId,
  isin: null,
  date,
  price: value,
  currency: "EUR",
  type: "close",
  source: "S",
  updatedAt: "2026-01-01T00:00:00.000Z",
});

describe("CosmosPriceRepository on the Cosmos stand-in", () => {
  let cosmos: Awaited<ReturnType<typeof startCosmos>>;
  let repo: CosmosPriceRepository;
  beforeAll(async () => {
    cosmos = await startCosmos();
    repo = new CosmosPriceRepository(cosmos.db.container("prices"));
  });
  afterAll(async () => cosmos.stop());

  it("counts created, updated and unchanged, and keeps the newest point per type and source", async () => {
    expect(await repo.save([price("2024-01-01", 10), price("2024-01-02", 11)])).toEqual({ created: 2, updated: 0, unchanged: 0 });
    expect(await repo.save([price("2024-01-01", 10), price("2024-01-02", 12), price("2024-01-03", 13)])).toEqual({ created: 1, updated: 1, unchanged: 1 });
    expect((await repo.latest(["sec_A"])).get("sec_A")?.map((p) => [p.date, p.price])).toEqual([["2024-01-03", 13]]);
    // A backfill does not move the newest point back.
    await repo.save([price("2023-12-29", 9)]);
    expect((await repo.latest(["sec_A"])).get("sec_A")?.map((p) => [p.date, p.price])).toEqual([["2024-01-03", 13]]);
  });

  it("gives a valuation the newest points, or reads back when the date is earlier", async () => {
    const now = await repo.forValuation(["sec_A", "sec_none"], "2024-02-01", ["close"]);
    expect(now.get("sec_A")?.map((p) => p.date)).toEqual(["2024-01-03"]);
    expect(now.get("sec_none")).toEqual([]);
    const earlier = await repo.forValuation(["sec_A"], "2024-01-02", ["close"]);
    expect(earlier.get("sec_A")?.map((p) => [p.date, p.price])).toEqual([["2024-01-02", 12], ["2024-01-01", 10], ["2023-12-29", 9]]);
  });

  it("loses no newest point when imports of one security race", async () => {
    await Promise.all(Array.from({ length: 8 }, (_, i) => repo.save([{ ...price(`2024-02-${String(i + 1).padStart(2, "0")}`, 100 + i, "sec_B"), source: `S${i}` }])));
    const latest = (await repo.latest(["sec_B"])).get("sec_B");
    expect(latest?.map((p) => p.source).sort()).toEqual(["S0", "S1", "S2", "S3", "S4", "S5", "S6", "S7"]);
  });

  it("lists by date with inclusive bounds, a type filter and a cursor", async () => {
    const page1 = await repo.list("sec_B", { from: "2024-02-02", to: "2024-02-07" }, { page: 1, pageSize: 4 });
    expect(page1.totalItems).toBe(6);
    expect(page1.items.map((p) => p.date)).toEqual(["2024-02-02", "2024-02-03", "2024-02-04", "2024-02-05"]);
    expect(page1.items.map((p) => p.source)).toEqual(["S1", "S2", "S3", "S4"]);
    expect(page1.nextCursor).not.toBeNull();
    const page2 = await repo.list("sec_B", { from: "2024-02-02", to: "2024-02-07" }, { cursor: page1.nextCursor ?? "", pageSize: 4 });
    expect(page2.items.map((p) => p.date)).toEqual(["2024-02-06", "2024-02-07"]);
    expect(page2.nextCursor).toBeNull();
    expect((await repo.list("sec_B", { type: "nav" }, { page: 1, pageSize: 10 })).totalItems).toBe(0);
  });
});
