import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCosmos } from "../../../test/cosmos-stand-in";
import { newPortfolio, type Portfolio } from "../../domain/portfolio";
import type { Clock } from "../../ports/clock";
import { CosmosPortfolioRepository } from "./cosmos-portfolio-repository";

/** The service's clock, set by the test: each write's instant is known exactly. */
class SetClock implements Clock {
  constructor(public at: string) {}
  now(): Date {
    return new Date(this.at);
  }
}

const portfolio = (id: string): Portfolio =>
  newPortfolio(
    {
      id,
      name: "Pending flag",
      code: id.toUpperCase(),
      clientId: "c1",
      baseCurrency: "EUR",
      type: "standard",
      status: "active",
    },
    "2026-03-01T09:00:00.000Z",
  );

describe("CosmosPortfolioRepository: the pending flag, as at any instant", () => {
  let cosmos: Awaited<ReturnType<typeof startCosmos>>;
  let repo: CosmosPortfolioRepository;
  const clock = new SetClock("2026-03-01T09:00:00.000Z");
  beforeAll(async () => {
    cosmos = await startCosmos();
    repo = new CosmosPortfolioRepository(cosmos.db.container("portfolios"), cosmos.db.container("versions"), clock);
  });
  afterAll(async () => cosmos.stop());

  it("set in place (no version), it shows pending from the instant it was set; cleared, it ends with a version", async () => {
    await repo.create(portfolio("pf-flag"));
    clock.at = "2026-03-01T10:00:00.000Z";
    await repo.markValuationPending(["pf-flag"]);
    // Flagged again while pending: still pending since the first flag.
    clock.at = "2026-03-01T10:30:00.000Z";
    await repo.markValuationPending(["pf-flag"]);

    const status = async (asAt?: string) => (await repo.get("pf-flag", asAt))?.valuationStatus;
    expect(await status()).toBe("pending");
    expect(await status("2026-03-01T09:59:59.999Z")).toBe("current");
    expect(await status("2026-03-01T10:00:00.000Z")).toBe("pending");
    // Setting the flag is not a version: the history still has the creation only, as read right after it.
    const before = await repo.history("pf-flag", { page: 1, pageSize: 10 });
    expect(before?.items.map((v) => [v.version, v.record?.valuationStatus])).toEqual([[1, "current"]]);

    clock.at = "2026-03-01T11:00:00.000Z";
    await repo.clearValuationPending(["pf-flag"], () => Promise.resolve(new Set<string>()));
    expect(await status()).toBe("current");
    expect(await status("2026-03-01T09:30:00.000Z")).toBe("current");
    expect(await status("2026-03-01T10:15:00.000Z")).toBe("pending");
    expect(await status("2026-03-01T10:59:59.999Z")).toBe("pending");
    expect(await status("2026-03-01T11:00:00.000Z")).toBe("current");
    const after = await repo.history("pf-flag", { page: 1, pageSize: 10 });
    expect(after?.items.map((v) => [v.version, v.recordedAt, v.record?.valuationStatus])).toEqual([
      [2, "2026-03-01T11:00:00.000Z", "current"],
      [1, "2026-03-01T09:00:00.000Z", "current"],
    ]);
    // A list as at an instant shows the flag as it was then too.
    const listed = await repo.list({ clientId: "c1" }, { page: 1, pageSize: 10 }, "2026-03-01T10:15:00.000Z");
    expect(listed.items.map((p) => [p.id, p.valuationStatus])).toEqual([["pf-flag", "pending"]]);
  });

  it("writes the flag only once the markers are written, and not at all when their write fails", async () => {
    await repo.create(portfolio("pf-order"));
    let markersDone!: () => void;
    const markers = new Promise<void>((resolve) => (markersDone = resolve));
    const flagging = repo.markValuationPending(["pf-order"], markers);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await repo.get("pf-order"))?.valuationStatus).toBe("current");
    markersDone();
    await flagging;
    expect((await repo.get("pf-order"))?.valuationStatus).toBe("pending");

    await repo.create(portfolio("pf-failed"));
    await expect(
      repo.markValuationPending(["pf-failed"], Promise.reject(new Error("markers refused"))),
    ).rejects.toThrow("markers refused");
    expect((await repo.get("pf-failed"))?.valuationStatus).toBe("current");
  });
});
