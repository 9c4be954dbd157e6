import { adminToken, resultLine, type BenchRuntime } from "./harness";
import { createBenchPortfolios, importBenchSecurities, post } from "./fixtures";

const POSITIONS = 5000;
const DATE = "2024-05-31";

type Reply = { status: number; body: unknown; ms: number };
const check = (what: string, reply: Reply): void => {
  if (reply.status >= 300)
    throw new Error(`${what} failed (${reply.status}): ${JSON.stringify(reply.body).slice(0, 500)}`);
};

/** Polls one portfolio until it is `current`; returns the milliseconds since `since`. */
async function untilCurrent(baseUrl: string, token: string, id: string, since: number): Promise<number> {
  for (;;) {
    const reply = await fetch(`${baseUrl}/api/v1/portfolios/${id}`, { headers: { Authorization: `Bearer ${token}` } });
    const body = (await reply.json()) as { data: { valuationStatus: string } };
    if (body.data.valuationStatus === "current") return performance.now() - since;
    if (performance.now() - since > 600_000) throw new Error(`portfolio ${id} still pending after 10 minutes`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Exceptions at volume: a portfolio of 5,000 positions none of which has a price (5,000 MISSING_PRICE
 * exceptions), next to one of 5,000 priced positions. Each is revalued after a quantity change: the
 * priced one is the baseline, the unpriced one finds its 5,000 exceptions again (one query, nothing
 * written for them; target: at most 1.5 times the baseline). Then the 5,000 prices arrive: the
 * revaluation resolves the 5,000 exceptions and announces each with `exception.resolved`, in bulk —
 * per exception the same store work as opening and announcing it, so its baseline is the first
 * valuation, which opened them (target: no slower).
 */
export async function benchValuationExceptions(runtime: BenchRuntime): Promise<boolean> {
  const token = await adminToken(runtime.baseUrl);
  const stamp = Date.now().toString(36);
  const [unpriced, priced] = [
    await importBenchSecurities(runtime.baseUrl, token, { count: POSITIONS, offset: 700_000, name: "Unpriced" }),
    await importBenchSecurities(runtime.baseUrl, token, { count: POSITIONS, offset: 710_000, name: "Priced" }),
  ];
  const prices = (securities: readonly { isin: string }[]) => ({
    prices: securities.map((s, i) => ({
      isin: s.isin,
      date: DATE,
      price: 10 + (i % 100),
      currency: "EUR",
      type: "close",
      source: "bench",
    })),
  });
  check("prices", await post(runtime.baseUrl, token, "/api/v1/import/prices", prices(priced)));
  const [withGaps, complete] = await createBenchPortfolios(runtime.baseUrl, token, {
    count: 2,
    name: "Exceptions bench",
    clientId: `bench-exc-${stamp}`,
    codeOf: (p) => `EXC-${stamp}-${p}`,
  });
  const positions = (portfolioId: string, securities: readonly { isin: string }[], quantity: number) => ({
    positions: securities.map((s) => ({ portfolioId, isin: s.isin, date: DATE, quantity })),
  });
  const revalue = async (id: string, body: unknown): Promise<number> => {
    const started = performance.now();
    check("positions", await post(runtime.baseUrl, token, "/api/v1/import/positions", body));
    return untilCurrent(runtime.baseUrl, token, id, started);
  };

  const opened = await revalue(withGaps ?? "", positions(withGaps ?? "", unpriced, 1));
  await revalue(complete ?? "", positions(complete ?? "", priced, 1));
  const plain = await revalue(complete ?? "", positions(complete ?? "", priced, 2));
  const refound = await revalue(withGaps ?? "", positions(withGaps ?? "", unpriced, 2));

  // The measured step: the 5,000 prices arrive; the revaluation resolves every exception.
  const started = performance.now();
  check("prices", await post(runtime.baseUrl, token, "/api/v1/import/prices", prices(unpriced)));
  const resolved = await untilCurrent(runtime.baseUrl, token, withGaps ?? "", started);
  const open = (await (
    await fetch(`${runtime.baseUrl}/api/v1/exceptions?type=MISSING_PRICE&status=open&pageSize=200`, {
      headers: { Authorization: `Bearer ${token}` },
    })
  ).json()) as { data: { message: string }[] };
  const left = open.data.filter((e) => e.message.includes(withGaps ?? "")).length;
  if (left > 0) throw new Error(`${left} MISSING_PRICE exceptions of the bench portfolio are still open`);

  console.log("\n== Exceptions at volume: 5,000 positions without a price (5,000 MISSING_PRICE) ==");
  console.log(`first valuation, opening and announcing 5,000 exceptions: ${(opened / 1000).toFixed(2)} s`);
  console.log(`revaluation of 5,000 priced positions (no exception): ${(plain / 1000).toFixed(2)} s`);
  console.log(`revaluation finding the 5,000 open exceptions again: ${(refound / 1000).toFixed(2)} s`);
  console.log(`revaluation resolving and announcing the 5,000: ${(resolved / 1000).toFixed(2)} s`);
  const lines = [
    resultLine("valuation-refind-exceptions", refound, plain, 1.5),
    resultLine("valuation-resolve-exceptions", resolved, opened, 1),
  ];
  for (const line of lines) console.log(line);
  return refound <= plain * 1.5 && resolved <= opened;
}
