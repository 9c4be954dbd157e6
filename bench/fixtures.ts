import { isinCheckDigit } from "../shared/domain/isin";

/** Valid ISINs for benchmarks: "XS" + 9 digits from `n` + the check digit. */
export function isinFor(n: number): string {
  const body = `XS${String(n).padStart(9, "0")}`;
  return `${body}${isinCheckDigit(body)}`;
}

export function dateAfter(start: string, days: number): string {
  const d = new Date(`${start}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

export async function post(
  baseUrl: string,
  token: string,
  path: string,
  body: unknown,
): Promise<{ status: number; body: unknown; ms: number }> {
  const started = performance.now();
  const response = await fetch(`${baseUrl}${path}`, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  const parsed: unknown = await response.json();
  return { status: response.status, body: parsed, ms: performance.now() - started };
}

/** Imports `count` EUR equities with ISINs from `offset` on (named `${name} ${k}`); returns them as sent. */
export async function importBenchSecurities(
  baseUrl: string,
  token: string,
  { count, offset, name }: { count: number; offset: number; name: string },
): Promise<{ isin: string; name: string; assetClass: string; currency: string }[]> {
  const securities = Array.from({ length: count }, (_, k) => ({
    isin: isinFor(offset + k),
    name: `${name} ${k}`,
    assetClass: "equity",
    currency: "EUR",
  }));
  const created = await post(baseUrl, token, "/api/v1/import/securities", { securities });
  if (created.status !== 200)
    throw new Error(`securities import failed: ${JSON.stringify(created.body).slice(0, 500)}`);
  return securities;
}

/** Creates `count` EUR portfolios of one client, named `${name} ${p}` with codes from `codeOf(p)`; returns their ids. */
export async function createBenchPortfolios(
  baseUrl: string,
  token: string,
  { count, name, clientId, codeOf }: { count: number; name: string; clientId: string; codeOf: (p: number) => string },
): Promise<string[]> {
  const portfolioIds: string[] = [];
  for (let p = 0; p < count; p++) {
    const reply = await post(baseUrl, token, "/api/v1/portfolios", {
      name: `${name} ${p}`,
      code: codeOf(p),
      clientId,
      baseCurrency: "EUR",
    });
    if (reply.status !== 201) throw new Error(`portfolio create failed: ${JSON.stringify(reply.body).slice(0, 500)}`);
    portfolioIds.push((reply.body as { data: { id: string } }).data.id);
  }
  return portfolioIds;
}

/** Peak resident memory of a process and its children, sampled from /proc while `run` goes on. */
export async function withPeakRss<T>(pid: number, run: () => Promise<T>): Promise<{ result: T; peakMb: number }> {
  const { readFileSync } = await import("node:fs");
  const rss = (): number => {
    try {
      const status = readFileSync(`/proc/${pid}/status`, "utf8");
      const kb = /VmRSS:\s+(\d+)/.exec(status)?.[1];
      return kb === undefined ? 0 : Number(kb) / 1024;
    } catch {
      return 0;
    }
  };
  let peak = rss();
  const timer = setInterval(() => (peak = Math.max(peak, rss())), 50);
  try {
    const result = await run();
    return { result, peakMb: Math.max(peak, rss()) };
  } finally {
    clearInterval(timer);
  }
}
