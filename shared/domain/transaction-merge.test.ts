import { describe, expect, it } from "vitest";
import { transactionImportSchema, type Transaction } from "./transaction";
import { mergeTransaction } from "./transaction-merge";

const NOW = "2024-04-01T00:00:00.000Z";
const record = (r: Record<string, unknown>) =>
  transactionImportSchema.parse({ externalId: "T-1", portfolioId: "pf_1", ...r });
const merge = (r: Record<string, unknown>, before?: Transaction, securityId: string | null | undefined = "sec_1") =>
  mergeTransaction({ id: "txn_1", portfolioId: "pf_1", securityId, record: record(r), before, now: NOW });
const stored = (r: Record<string, unknown>): Transaction => {
  const out = merge(r);
  if (!("transaction" in out)) throw new Error(JSON.stringify(out.problems));
  return out.transaction;
};
const BUY = { type: "buy", tradeDate: "2024-03-26", quantity: 100, price: 170.1, fees: 5, currency: "USD" };

describe("mergeTransaction", () => {
  it("creates with magnitudes: gross = quantity × price, a buy's net = gross + fees, a sell's gross − fees", () => {
    expect(stored(BUY)).toMatchObject({ grossAmount: 17010, fees: 5, netAmount: 17015, status: "pending" });
    expect(stored({ ...BUY, type: "sell" })).toMatchObject({ grossAmount: 17010, netAmount: 17005 });
  });

  it("keeps every field a record does not carry; null clears a nullable one", () => {
    const before = stored({ ...BUY, settlementDate: "2024-03-28", source: "custodian" });
    const settled = merge({ status: "settled" }, before, undefined);
    expect("transaction" in settled && settled.transaction).toMatchObject({
      type: "buy",
      securityId: "sec_1",
      quantity: 100,
      grossAmount: 17010,
      netAmount: 17015,
      settlementDate: "2024-03-28",
      source: "custodian",
      status: "settled",
    });
    const cleared = merge({ settlementDate: null, source: null }, before, undefined);
    expect("transaction" in cleared && cleared.transaction).toMatchObject({ settlementDate: null, source: null });
  });

  it("derives the amounts again from a changed quantity, price or fees, and keeps a sent figure", () => {
    const before = stored(BUY);
    const more = merge({ quantity: 200 }, before, undefined);
    expect("transaction" in more && more.transaction).toMatchObject({ grossAmount: 34020, netAmount: 34025 });
    const fees = merge({ fees: 10 }, before, undefined);
    expect("transaction" in fees && fees.transaction).toMatchObject({ grossAmount: 17010, netAmount: 17020 });
  });

  it("refuses a netAmount that contradicts gross ± fees by more than one minor unit, whichever record brought the parts", () => {
    expect(merge({ ...BUY, netAmount: 17015.01 })).toHaveProperty("transaction");
    // A record that carries every part is refused by its schema already (a dry run shows it).
    expect(
      transactionImportSchema.safeParse({ externalId: "x", portfolioId: "p", ...BUY, netAmount: 17015.02 }).error
        ?.issues,
    ).toEqual([
      expect.objectContaining({
        path: ["netAmount"],
        message: expect.stringMatching(/^17015.02 contradicts grossAmount \+ fees = 17010 \+ 5 = 17015/),
      }),
    ]);
    // The README's old buy: a signed amount.
    expect(
      transactionImportSchema.safeParse({ externalId: "x", portfolioId: "p", ...BUY, netAmount: -17015 }).error?.issues,
    ).toEqual([
      expect.objectContaining({ path: ["netAmount"], message: expect.stringMatching(/must not be negative/) }),
    ]);
    // The record sends only net; the stored gross and fees decide.
    expect(merge({ netAmount: 20000 }, stored(BUY), undefined)).toEqual({
      problems: [
        { field: "netAmount", message: expect.stringMatching(/contradicts grossAmount \+ fees = 17010 \+ 5 = 17015/) },
      ],
    });
  });

  it("needs type, tradeDate and currency to create, and a netAmount for a type that cannot derive one", () => {
    expect(merge({ quantity: 1 })).toEqual({
      problems: [
        { field: "type", message: "is required for a new transaction" },
        { field: "tradeDate", message: "is required for a new transaction" },
        { field: "currency", message: "is required for a new transaction" },
      ],
    });
    expect(merge({ type: "dividend", tradeDate: "2024-03-26", currency: "EUR" })).toEqual({
      problems: [{ field: "netAmount", message: "netAmount is required for a dividend" }],
    });
  });
});
