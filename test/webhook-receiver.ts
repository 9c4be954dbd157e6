import { randomBytes } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";

/** A Standard Webhooks secret a customer would choose: `whsec_` + base64 of 32 random bytes. */
export const newWebhookSecret = (): string => `whsec_${randomBytes(32).toString("base64")}`;

export interface Received {
  at: number;
  headers: IncomingHttpHeaders;
  body: string;
  envelope: { id: string; event: string; timestamp: string; data: Record<string, unknown> };
  /** The secrets (of those the receiver knows) whose signature verified, each checked on its own. */
  verifiedWith: string[];
}

export interface Answer {
  status: number;
  headers?: Record<string, string>;
  /** The answer's body (none by default). */
  body?: string;
  /** Sends the status line and headers at once, then the body at 1 byte/s until the sender hangs up. */
  trickle?: boolean;
}

/**
 * A webhook endpoint on 127.0.0.1 for the delivery tests: records every POST, checks its signatures
 * with the `standardwebhooks` package (an implementation independent of ours) against every secret
 * it knows, and answers what `answer` says (200 by default). `down()` closes the port; `up()` opens
 * the same port again.
 */
export class WebhookReceiver {
  readonly received: Received[] = [];
  secrets: string[] = [];
  answer: (envelope: Received["envelope"], received: Received[]) => Answer = () => ({ status: 200 });
  private server: Server | undefined;
  private port = 0;

  get url(): string {
    return `http://127.0.0.1:${this.port}/hook`;
  }

  async up(): Promise<this> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const body = Buffer.concat(chunks).toString("utf8");
        const verifiedWith = this.secrets.filter((secret) => {
          try {
            new Webhook(secret).verify(body, req.headers as Record<string, string>);
            return true;
          } catch {
            return false;
          }
        });
        let envelope: Received["envelope"];
        try {
          envelope = JSON.parse(body) as Received["envelope"];
        } catch {
          envelope = { id: "", event: "", timestamp: "", data: {} };
        }
        const received: Received = { at: Date.now(), headers: req.headers, body, envelope, verifiedWith };
        this.received.push(received);
        const answer = this.answer(envelope, this.received);
        if (answer.trickle !== true) {
          res.writeHead(answer.status, answer.headers ?? {}).end(answer.body);
          return;
        }
        res.writeHead(answer.status, { "content-type": "text/plain", ...answer.headers });
        res.flushHeaders();
        const timer = setInterval(() => res.write("."), 1_000);
        res.on("close", () => clearInterval(timer));
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(this.port, "127.0.0.1", () => resolve());
    });
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
    return this;
  }

  async down(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server === undefined) return;
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }

  /** Deliveries of one event name (the creation test events left out unless asked for). */
  of(event: string): Received[] {
    return this.received.filter((r) => r.envelope.event === event);
  }

  /** How many times each webhook-id arrived. */
  countsById(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const r of this.received)
      counts.set(String(r.headers["webhook-id"]), (counts.get(String(r.headers["webhook-id"])) ?? 0) + 1);
    return counts;
  }
}
