import http from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import type { TLSSocket } from "node:tls";
import { generate } from "selfsigned";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { GuardedWebhookSender, type LookupAll } from "./guarded-webhook-sender";

/** A loopback receiver whose answer each test sets; it counts requests and TCP connections. */
let server: http.Server;
let port = 0;
let connections = 0;
let handler: (req: http.IncomingMessage, res: http.ServerResponse) => void = (_req, res) => res.writeHead(204).end();
const seen: { host?: string; body: string; headers: http.IncomingHttpHeaders }[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      seen.push({ host: req.headers.host, body, headers: req.headers });
      handler(req, res);
    });
  });
  server.on("connection", () => connections++);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));
afterEach(() => {
  vi.restoreAllMocks();
  seen.length = 0;
  handler = (_req, res) => res.writeHead(204).end();
});

const loopbackOnly: LookupAll = async () => [{ address: "127.0.0.1", family: 4 }];

describe("GuardedWebhookSender with private networks not allowed", () => {
  const refusedUrls = [
    "http://169.254.169.254/",
    "https://169.254.169.254/latest/meta-data/",
    "http://[::ffff:127.0.0.1]/",
    "https://[::ffff:127.0.0.1]/",
    "http://0x7f000001/",
    "https://0x7f000001/",
    "https://127.1/",
    "https://[::1]/",
    "https://10.0.0.1/",
    "https://[fd00:ec2::254]/",
    "https://100.100.100.200/",
    "https://[64:ff9b::a9fe:a9fe]/",
    "https://user:pass@example.com/",
    "https://metadata.google.internal/computeMetadata/v1/",
    "ftp://example.com/",
    "not a url",
  ];

  it.each(refusedUrls)("refuses %s before any connection", async (url) => {
    const lookup = vi.fn<LookupAll>(async () => [{ address: "93.184.215.14", family: 4 }]);
    const httpRequest = vi.spyOn(http, "request");
    const httpsRequest = vi.spyOn(https, "request");
    const sender = new GuardedWebhookSender({ allowPrivateNetworks: false, lookup });
    const result = await sender.post(url, {}, "{}");
    expect(result.statusCode).toBeUndefined();
    expect(result.refused).toBe(true);
    expect(result.error).toMatch(/https|user name|non-public|metadata|not a valid URL/);
    expect(httpRequest).not.toHaveBeenCalled();
    expect(httpsRequest).not.toHaveBeenCalled();
    sender.close();
  });

  it("refuses a name that resolves to a private address, and one with any private address among public ones", async () => {
    const httpsRequest = vi.spyOn(https, "request");
    for (const addresses of [
      [{ address: "10.0.0.1", family: 4 }],
      [
        { address: "93.184.215.14", family: 4 },
        { address: "::ffff:192.168.0.1", family: 6 },
      ],
    ]) {
      const lookup = vi.fn<LookupAll>(async () => addresses);
      const sender = new GuardedWebhookSender({ allowPrivateNetworks: false, lookup });
      const result = await sender.post("https://hooks.customer.test/in", {}, "{}");
      expect(result).toMatchObject({
        refused: true,
        error: expect.stringMatching(/non-public address \(private address\)/),
      });
      expect(lookup).toHaveBeenCalledTimes(1);
    }
    expect(httpsRequest).not.toHaveBeenCalled();
  });

  it("answers a host that does not resolve with a readable error", async () => {
    const sender = new GuardedWebhookSender({
      allowPrivateNetworks: false,
      lookup: async () => Promise.reject(new Error("ENOTFOUND")),
    });
    const result = await sender.post("https://nowhere.customer.test/", {}, "{}");
    expect(result).toMatchObject({ error: "the host 'nowhere.customer.test' could not be resolved" });
    expect(result.refused).toBeUndefined();
  });

  it("counts name resolution in its time-out", async () => {
    const sender = new GuardedWebhookSender({
      allowPrivateNetworks: false,
      timeoutMs: 200,
      lookup: () => new Promise(() => {}),
    });
    expect(await sender.post("https://slow-dns.customer.test/", {}, "{}")).toMatchObject({
      error: "no answer within 0.2 s (resolving 'slow-dns.customer.test')",
    });
  });
});

describe("GuardedWebhookSender over loopback (private networks allowed)", () => {
  it("POSTs the body and headers to the vetted address, keeping the host name in Host, with one lookup", async () => {
    const lookup = vi.fn(loopbackOnly);
    const httpRequest = vi.spyOn(http, "request"); // the same spy proves the refusals above never connected
    const sender = new GuardedWebhookSender({ allowPrivateNetworks: true, lookup });
    // receiver.customer.test resolves only through the injected lookup: a second (system) lookup would fail.
    const result = await sender.post(
      `http://receiver.customer.test:${port}/hook?x=1`,
      { "webhook-id": "msg_1" },
      '{"a":1}',
    );
    expect(result).toMatchObject({ statusCode: 204 });
    expect(result.error).toBeUndefined();
    expect(lookup).toHaveBeenCalledTimes(1);
    expect(httpRequest).toHaveBeenCalledTimes(1);
    expect(seen[0]).toMatchObject({ host: `receiver.customer.test:${port}`, body: '{"a":1}' });
    expect(seen[0]?.headers).toMatchObject({ "webhook-id": "msg_1", "content-type": "application/json" });
    sender.close();
  });

  it("treats a 3xx as a failure naming the status and does not follow it", async () => {
    handler = (_req, res) => res.writeHead(302, { Location: `http://127.0.0.1:${port}/elsewhere` }).end();
    const sender = new GuardedWebhookSender({ allowPrivateNetworks: true });
    const result = await sender.post(`http://127.0.0.1:${port}/hook`, {}, "{}");
    expect(result).toMatchObject({
      statusCode: 302,
      error: "the endpoint answered 302 (a redirect, which is not followed)",
    });
    expect(seen).toHaveLength(1);
    sender.close();
  });

  it("reports error statuses and reads Retry-After as seconds or an HTTP date", async () => {
    const sender = new GuardedWebhookSender({
      allowPrivateNetworks: true,
      now: () => Date.parse("2026-01-01T00:00:00Z"),
    });
    handler = (_req, res) => res.writeHead(503, { "Retry-After": "120" }).end("busy");
    expect(await sender.post(`http://127.0.0.1:${port}/`, {}, "{}")).toMatchObject({
      statusCode: 503,
      retryAfterSeconds: 120,
      error: "the endpoint answered 503",
    });
    handler = (_req, res) => res.writeHead(429, { "Retry-After": "Thu, 01 Jan 2026 00:01:30 GMT" }).end();
    expect(await sender.post(`http://127.0.0.1:${port}/`, {}, "{}")).toMatchObject({
      statusCode: 429,
      retryAfterSeconds: 90,
    });
    sender.close();
  });

  it("gives up after its time-out", async () => {
    handler = () => {}; // never answers
    const sender = new GuardedWebhookSender({ allowPrivateNetworks: true, timeoutMs: 300 });
    const result = await sender.post(`http://127.0.0.1:${port}/slow`, {}, "{}");
    expect(result).toMatchObject({ error: "no answer within 0.3 s" });
    expect(result.statusCode).toBeUndefined();
    sender.close();
  });

  it("drops a large answer body without failing a 2xx, keeping its first 4 KB for the log", async () => {
    handler = (_req, res) => res.writeHead(200).end(Buffer.alloc(1024 * 1024, 97));
    const sender = new GuardedWebhookSender({ allowPrivateNetworks: true, maxResponseBytes: 1024 });
    const result = await sender.post(`http://127.0.0.1:${port}/big`, {}, "{}");
    expect(result).toMatchObject({ statusCode: 200, response: { bodyTruncated: true } });
    expect(result.response?.body).toBe("a".repeat(4096));
    sender.close();
  });

  it("reports what it sent and what came back: headers (bounded, NUL made harmless) and the first 4 KB of the body", async () => {
    handler = (_req, res) => {
      res.setHeader("x-trace", "abc");
      res.setHeader("set-cookie", ["a=1", "b=2"]);
      for (let i = 0; i < 40; i++) res.setHeader(`x-filler-${i}`, "v".repeat(200));
      res.writeHead(503, { "content-type": "application/json" }).end('{"error":"busy\u0000","detail":"é"}');
    };
    const sender = new GuardedWebhookSender({ allowPrivateNetworks: true });
    const result = await sender.post(`http://127.0.0.1:${port}/log`, { "webhook-id": "msg_1" }, '{"a":1}');
    expect(result.requestHeaders).toEqual({
      "webhook-id": "msg_1",
      "content-type": "application/json",
      "content-length": "7",
      "user-agent": "investment-data-service-webhooks/1",
    });
    expect(result.statusCode).toBe(503);
    expect(result.response?.body).toBe('{"error":"busy\uFFFD","detail":"é"}');
    expect(result.response?.headers).toMatchObject({ "x-trace": "abc", "set-cookie": "a=1, b=2" });
    const headerBytes = Object.entries(result.response?.headers ?? {}).reduce(
      (n, [k, v]) => n + k.length + v.length,
      0,
    );
    expect(headerBytes).toBeLessThanOrEqual(4096);
    sender.close();
  });

  it("a 2xx status line within the time-out is the answer: a body that trickles is waited for a moment only (for the log), and no longer read", async () => {
    let closed: Promise<void> = Promise.resolve();
    handler = (_req, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      res.flushHeaders();
      const timer = setInterval(() => res.write("."), 100); // 10 bytes/s, never ending
      closed = new Promise((r) => res.on("close", () => r()));
      res.on("close", () => clearInterval(timer));
    };
    const sender = new GuardedWebhookSender({ allowPrivateNetworks: true, timeoutMs: 3_000 });
    const started = Date.now();
    const result = await sender.post(`http://127.0.0.1:${port}/trickle`, {}, "{}");
    expect(result).toMatchObject({ statusCode: 200, response: { headers: { "content-type": "text/plain" } } });
    expect(result.response?.body).toMatch(/^\.{1,5}$/); // what came by the moment the log waited for
    expect(result.durationMs).toBeLessThan(1_000);
    expect(Date.now() - started).toBeLessThan(1_000);
    await closed; // the sender dropped the connection rather than read on to its time-out
    expect(Date.now() - started).toBeLessThan(2_500);
    sender.close();
  });

  it("reuses connections across a burst (keep-alive)", async () => {
    const sender = new GuardedWebhookSender({ allowPrivateNetworks: true });
    const before = connections;
    for (let i = 0; i < 20; i++)
      expect((await sender.post(`http://127.0.0.1:${port}/burst`, {}, "{}")).statusCode).toBe(204);
    expect(connections - before).toBe(1);
    sender.close();
  });

  it("sends once more on a new connection when a kept-alive one turns out closed", async () => {
    const perSocket = new WeakMap<object, number>();
    let requests = 0;
    handler = (req, res) => {
      requests++;
      const n = (perSocket.get(req.socket) ?? 0) + 1;
      perSocket.set(req.socket, n);
      if (n === 2)
        req.socket.destroy(); // the endpoint dropped the idle connection as it was reused
      else res.writeHead(204).end();
    };
    const sender = new GuardedWebhookSender({ allowPrivateNetworks: true });
    expect((await sender.post(`http://127.0.0.1:${port}/a`, {}, "{}")).statusCode).toBe(204);
    expect((await sender.post(`http://127.0.0.1:${port}/b`, {}, "{}")).statusCode).toBe(204);
    expect(requests).toBe(3);
    sender.close();
  });

  it("still refuses credentials in the URL", async () => {
    const sender = new GuardedWebhookSender({ allowPrivateNetworks: true });
    expect(await sender.post(`http://u:p@127.0.0.1:${port}/`, {}, "{}")).toMatchObject({ refused: true });
    expect(seen).toHaveLength(0);
  });
});

describe("GuardedWebhookSender over TLS", () => {
  it("connects to the vetted address with SNI and certificate check on the host name", async () => {
    const pems = await generate([{ name: "commonName", value: "hooks.customer.test" }], {
      extensions: [{ name: "subjectAltName", altNames: [{ type: 2, value: "hooks.customer.test" }] }],
    });
    const names: (string | false | null)[] = [];
    const tls = https.createServer({ key: pems.private, cert: pems.cert }, (req, res) => {
      names.push((req.socket as TLSSocket).servername);
      req.resume();
      req.on("end", () => res.writeHead(200).end());
    });
    await new Promise<void>((r) => tls.listen(0, "127.0.0.1", r));
    const tlsPort = (tls.address() as AddressInfo).port;
    const lookup = vi.fn(loopbackOnly);
    const sender = new GuardedWebhookSender({
      allowPrivateNetworks: true,
      lookup,
      httpsAgentOptions: { ca: pems.cert },
    });
    try {
      expect(await sender.post(`https://hooks.customer.test:${tlsPort}/in`, {}, "{}")).toMatchObject({
        statusCode: 200,
      });
      expect(names).toEqual(["hooks.customer.test"]);
      expect(lookup).toHaveBeenCalledTimes(1);
      // The certificate is for the name, not the address: reaching it by address fails verification.
      expect(await sender.post(`https://127.0.0.1:${tlsPort}/in`, {}, "{}")).toMatchObject({
        error: expect.stringMatching(/TLS handshake failed/),
      });
    } finally {
      sender.close();
      tls.closeAllConnections();
      await new Promise((r) => tls.close(r));
    }
  });
});
