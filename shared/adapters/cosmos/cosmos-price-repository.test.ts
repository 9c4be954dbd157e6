import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCosmos } from "../../../test/cosmos-stand-in";
import type { Price } from "../../domain/price";
import { selectPrice } from "../../domain/valuation";
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
    expect(await repo.save([price("2024-01-01", 10), price("2024-01-02", 11)])).toEqual({
      created: 2,
      updated: 0,
      unchanged: 0,
    });
    expect(await repo.save([price("2024-01-01", 10), price("2024-01-02", 12), price("2024-01-03", 13)])).toEqual({
      created: 1,
      updated: 1,
      unchanged: 1,
    });
    expect((await repo.latest(["sec_A"])).get("sec_A")?.map((p) => [p.date, p.price])).toEqual([["2024-01-03", 13]]);
    // A backfill does not move the newest point back.
    await repo.save([price("2023-12-29", 9)]);
    expect((await repo.latest(["sec_A"])).get("sec_A")?.map((p) => [p.date, p.price])).toEqual([["2024-01-03", 13]]);
  });

  it("gives a valuation the newest points, or reads back when the date is earlier", async () => {
    const now = await repo.forValuation(["sec_A", "sec_none"], "2024-02-01", ["close"]);
    expect(now.get("sec_A")?.map((p) => p.date)).toEqual(["2024-01-03"]);
    expect(now.get("sec_none")).toEqual([]);
    // Only the newest point on or before the date counts for a type: older ones are not read.
    const earlier = await repo.forValuation(["sec_A"], "2024-01-02", ["close"]);
    expect(earlier.get("sec_A")?.map((p) => [p.date, p.price])).toEqual([["2024-01-02", 12]]);
  });

  it("finds the preferred type on an earlier date behind 60 newer points of other types and sources", async () => {
    const at = (type: Price["type"], source: string, date: string, value: number, currency = "EUR"): Price => ({
      ...price(date, value, "sec_C"),
      type,
      source,
      currency,
    });
    const newer = Array.from({ length: 60 }, (_, i) =>
      at(i % 2 === 0 ? "bid" : "ask", `N${i}`, `2024-03-${String(10 + (i % 20)).padStart(2, "0")}`, 50 + i),
    );
    // Two sources on the newest close date: selectPrice breaks that tie by source, so both must come back.
    // A close after the valuation date sends the read back to the stored points before it.
    await repo.save([
      at("close", "Z", "2024-03-01", 20),
      at("close", "A", "2024-03-01", 21),
      at("close", "A", "2024-02-28", 19),
      at("close", "A", "2024-04-05", 22),
      at("mid", "M", "2024-02-27", 18),
      ...newer,
    ]);
    const points = (await repo.forValuation(["sec_C"], "2024-03-31", ["close", "mid"])).get("sec_C") ?? [];
    expect(points.map((p) => [p.type, p.source, p.date, p.price]).sort()).toEqual([
      ["close", "A", "2024-03-01", 21],
      ["close", "Z", "2024-03-01", 20],
      ["mid", "M", "2024-02-27", 18],
    ]);
    expect(selectPrice(points, "2024-03-31", ["close", "mid"])).toMatchObject({ source: "A", price: 21 });
  });

  it("loses no newest point when imports of one security race", async () => {
    await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        repo.save([{ ...price(`2024-02-${String(i + 1).padStart(2, "0")}`, 100 + i, "sec_B"), source: `S${i}` }]),
      ),
    );
    const latest = (await repo.latest(["sec_B"])).get("sec_B");
    expect(latest?.map((p) => p.source).sort()).toEqual(["S0", "S1", "S2", "S3", "S4", "S5", "S6", "S7"]);
  });

  it("lists by date with inclusive bounds, a type filter and a cursor", async () => {
    const page1 = await repo.list("sec_B", { from: "2024-02-02", to: "2024-02-07" }, { page: 1, pageSize: 4 });
    expect(page1.totalItems).toBe(6);
    expect(page1.items.map((p) => p.date)).toEqual(["2024-02-02", "2024-02-03", "2024-02-04", "2024-02-05"]);
    expect(page1.items.map((p) => p.source)).toEqual(["S1", "S2", "S3", "S4"]);
    expect(page1.nextCursor).not.toBeNull();
    const page2 = await repo.list(
      "sec_B",
      { from: "2024-02-02", to: "2024-02-07" },
      { cursor: page1.nextCursor ?? "", pageSize: 4 },
    );
    expect(page2.items.map((p) => p.date)).toEqual(["2024-02-06", "2024-02-07"]);
    expect(page2.nextCursor).toBeNull();
    expect((await repo.list("sec_B", { type: "nav" }, { page: 1, pageSize: 10 })).totalItems).toBe(0);
  });
});
