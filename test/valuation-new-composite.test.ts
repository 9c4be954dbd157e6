import { beforeAll, describe, expect, it } from "vitest";
import { adminToken, useOwnRuntime } from "./http";
import {
  createPortfolio,
  createSecurities,
  holdingsOf,
  imported,
  price,
  securityRecord,
  valuedPortfolio,
  whenValued,
} from "./investment-fixtures";

useOwnRuntime();

// A runtime of its own keeps other files' FX imports out of this valuation.
describe("a composite created after its members were valued", () => {
  let token: string;
  beforeAll(async () => {
    token = await adminToken();
  });

  it("is valued, without a request, on its members' latest snapshot date", async () => {
    const [a, b] = [securityRecord(), securityRecord()];
    await createSecurities(token, [a, b]);
    await imported(token, "prices", { prices: [price(a.isin, "2031-04-01", 12.5), price(b.isin, "2031-04-01", 3.1)] });
    const first = await createPortfolio(token);
    const second = await createPortfolio(token);
    await imported(token, "positions", {
      positions: [{ portfolioId: first.id, isin: a.isin, date: "2031-04-01", quantity: 10 }],
    });
    await imported(token, "positions", {
      positions: [
        { portfolioId: second.id, isin: a.isin, date: "2031-03-31", quantity: 4 },
        { portfolioId: second.id, isin: b.isin, date: "2031-03-31", quantity: 7 },
      ],
    });
    await whenValued(token, first.id, second.id);
    const created = await createPortfolio(token, { type: "composite", memberIds: [first.id, second.id] });
    // Created with its first valuation pending, then valued by the valuations queue.
    expect(created.valuationStatus).toBe("pending");
    const composite = await valuedPortfolio(token, created.id);
    // On 2031-04-01: a = (10 + 4) × 12.50 = 175.00; b = 7 × 3.10 = 21.70; total 196.70.
    expect(composite.totalValue).toBe(196.7);
    expect(composite.latestValuationDate).toBe("2031-04-01");
    const holdings = await holdingsOf(token, composite.id);
    expect(holdings.holdings.map((h) => [h.securityId, h.quantity, h.marketValue])).toEqual([
      [`sec_${a.isin}`, 14, 175],
      [`sec_${b.isin}`, 7, 21.7],
    ]);
  });
});
