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
