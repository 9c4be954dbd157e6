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

  it("counts created, updated and unchanged from the history, and keeps the history in step", async () => {
    const first = await repo.save([price("2024-01-01", 10), price("2024-01-02", 11)], await repo.history(["sec_A"]));
    expect(first).toEqual({ created: 2, updated: 0, unchanged: 0 });
    const second = await repo.save([price("2024-01-01", 10), price("2024-01-02", 12), price("2024-01-03", 13)], await repo.history(["sec_A"]));
    expect(second).toEqual({ created: 1, updated: 1, unchanged: 1 });
    const history = (await repo.history(["sec_A"])).get("sec_A");
    expect(history?.map((p) => [p.date, p.price])).toEqual([["2024-01-01", 10], ["2024-01-02", 12], ["2024-01-03", 13]]);
  });

  it("loses no history point when imports of one security race", async () => {
    const before = await repo.history(["sec_B"]);
    await Promise.all(Array.from({ length: 8 }, (_, i) => repo.save([price(`2024-02-${String(i + 1).padStart(2, "0")}`, 100 + i, "sec_B")], before)));
    const history = (await repo.history(["sec_B"])).get("sec_B");
    expect(history?.map((p) => p.date)).toEqual(Array.from({ length: 8 }, (_, i) => `2024-02-${String(i + 1).padStart(2, "0")}`));
  });

  it("lists by date with inclusive bounds, a type filter and a cursor", async () => {
    const page1 = await repo.list("sec_B", { from: "2024-02-02", to: "2024-02-07" }, { page: 1, pageSize: 4 });
    expect(page1.totalItems).toBe(6);
    expect(page1.items.map((p) => p.date)).toEqual(["2024-02-02", "2024-02-03", "2024-02-04", "2024-02-05"]);
    expect(page1.nextCursor).not.toBeNull();
    const page2 = await repo.list("sec_B", { from: "2024-02-02", to: "2024-02-07" }, { cursor: page1.nextCursor ?? "", pageSize: 4 });
    expect(page2.items.map((p) => p.date)).toEqual(["2024-02-06", "2024-02-07"]);
    expect(page2.nextCursor).toBeNull();
    expect((await repo.list("sec_B", { type: "nav" }, { page: 1, pageSize: 10 })).totalItems).toBe(0);
  });
});
