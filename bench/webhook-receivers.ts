import { createHmac } from "node:crypto";
import { Agent, createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** A loopback webhook endpoint that verifies nothing, counts, and answers 200. */
export interface BenchReceiver {
  url: string;
  server: Server;
  /** Arrivals of transaction.settled, by webhook-id. */
  seen: Map<string, number>;
  /** Event timestamp → arrival, ms, per arrival. */
  latencies: number[];
  lastAt: number;
  firstEventAt: number;
  raw: number;
}

export async function benchReceiver(): Promise<BenchReceiver> {
  const r: BenchReceiver = {
    url: "",
    server: undefined as unknown as Server,
    seen: new Map(),
    latencies: [],
    lastAt: 0,
    firstEventAt: Number.POSITIVE_INFINITY,
    raw: 0,
  };
  r.server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const now = Date.now();
      if (req.headers["x-bench-raw"] !== undefined) r.raw++;
      else {
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { event: string; timestamp: string };
        if (body.event === "transaction.settled") {
          const id = String(req.headers["webhook-id"]);
          r.seen.set(id, (r.seen.get(id) ?? 0) + 1);
          const at = Date.parse(body.timestamp);
          r.firstEventAt = Math.min(r.firstEventAt, at);
          r.latencies.push(now - at);
          r.lastAt = Math.max(r.lastAt, now);
        }
      }
      res.writeHead(200).end();
    });
  });
  r.server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => r.server.listen(0, "127.0.0.1", resolve));
  r.url = `http://127.0.0.1:${(r.server.address() as AddressInfo).port}/hook`;
  return r;
}

export async function closeReceivers(receivers: readonly BenchReceiver[]): Promise<void> {
  for (const r of receivers) r.server.closeAllConnections();
  await Promise.all(receivers.map((r) => new Promise((resolve) => r.server.close(resolve))));
}

/** `count` signed POSTs straight from this process, `concurrency` at a time, over keep-alive connections; POSTs/s. */
export async function rawPostRate(
  receivers: readonly BenchReceiver[],
  count: number,
  concurrency: number,
  payload: string,
  secret: Buffer,
): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++;
        const target = new URL(receivers[i % receivers.length]!.url);
        const id = `msg_raw_${i}`;
        const timestamp = String(Math.floor(Date.now() / 1000));
        const signature = createHmac("sha256", secret).update(`${id}.${timestamp}.${payload}`).digest("base64");
        const headers = {
          "content-type": "application/json",
          "webhook-id": id,
          "webhook-timestamp": timestamp,
          "webhook-signature": `v1,${signature}`,
          "x-bench-raw": "1",
        };
        await new Promise<void>((resolve, reject) => {
          const req = request(
            { host: target.hostname, port: target.port, path: target.pathname, method: "POST", headers, agent },
            (res) => {
              res.resume().on("end", resolve);
            },
          );
          req.on("error", reject);
          req.end(payload);
        });
      }
    }),
  );
  agent.destroy();
  return count / ((performance.now() - started) / 1000);
}

export const percentile = (values: readonly number[], q: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
};
