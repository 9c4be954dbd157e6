import { context, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { suppressTracing } from "@opentelemetry/core";
import { lookup as dnsLookup } from "node:dns/promises";
import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import type { WebhookPostResult, WebhookSender } from "../../ports/webhook-delivery";
import { ipLiteral, isMetadataHostName, refusedAddressReason } from "./address-rules";
import { captureAnswer } from "./captured-answer";
import { retryAfterSeconds } from "./retry-after";

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Resolves a host name to every address it has (dns.lookup with all: true). Injectable for tests. */
export type LookupAll = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemLookupAll: LookupAll = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

export interface GuardedSenderOptions {
  /** WEBHOOK_ALLOW_PRIVATE_NETWORKS: lifts the address rules and allows http (local runtime and tests). */
  allowPrivateNetworks: boolean;
  lookup?: LookupAll;
  /** The whole POST, connection to last byte (15 s by the contract; tests shorten it). */
  timeoutMs?: number;
  /** How much of an answer's body is read (and discarded) before the connection is dropped. */
  maxResponseBytes?: number;
  now?: () => number;
  /** Extra TLS settings of the https agent (a test's own CA); certificates are always verified. */
  httpsAgentOptions?: Pick<https.AgentOptions, "ca">;
}

const USER_AGENT = "investment-data-service-webhooks/1";

/**
 * How long an answer's body may take to end after its status line before the connection is dropped
 * (a receiver that trickles its body must not hold a socket for the whole time-out).
 */
const BODY_DRAIN_MS = 1_000;

/** Records each POST in the sender's trace (an HTTP dependency in Application Insights). */
const tracer = trace.getTracer("webhook-sender");

/** Why the URL was refused before any connection, as a WebhookPostResult error. */
class Refused extends Error {}
/** A failure before any connection that is not a rule (DNS): worth retrying, unlike a refusal. */
class Unreachable extends Error {}

/**
 * POSTs to customer URLs with the SSRF guard: the host is resolved once, every address vetted, and the
 * socket connects to a vetted address through a `lookup` that answers with it (no second resolution a
 * DNS rebinding could change), while SNI and Host keep the name. Keep-alive agents let a delivery
 * burst reuse connections.
 */
export class GuardedWebhookSender implements WebhookSender {
  private readonly lookup: LookupAll;
  private readonly timeoutMs: number;
  private readonly maxResponseBytes: number;
  private readonly now: () => number;
  private readonly httpsAgent: https.Agent;
  private readonly httpAgent = new http.Agent({ keepAlive: true, maxSockets: 256 });

  constructor(private readonly options: GuardedSenderOptions) {
    this.lookup = options.lookup ?? systemLookupAll;
    this.timeoutMs = options.timeoutMs ?? 15_000;
    this.maxResponseBytes = options.maxResponseBytes ?? 64 * 1024;
    this.now = options.now ?? Date.now;
    this.httpsAgent = new https.Agent({ ...options.httpsAgentOptions, keepAlive: true, maxSockets: 256 });
  }

  /**
   * The POST is recorded as a span of the service's trace, but sent with tracing suppressed: the HTTP
   * instrumentation then neither records it again nor writes the service's `traceparent` into the
   * request, so a customer's endpoint never learns the service's internal trace ids.
   */
  async post(url: string, headers: Readonly<Record<string, string>>, body: string): Promise<WebhookPostResult> {
    const target = URL.canParse(url) ? new URL(url) : undefined;
    // Without the query string or credentials a URL may carry: the span is telemetry, the URL the customer's.
    const shown = target !== undefined ? `${target.origin}${target.pathname}` : "(not a URL)";
    const span = tracer.startSpan(`POST ${target?.host ?? ""}`, {
      kind: SpanKind.CLIENT,
      attributes: { "http.method": "POST", "http.request.method": "POST", "http.url": shown, "url.full": shown },
    });
    try {
      const result = await context.with(suppressTracing(context.active()), () => this.attempt(url, headers, body));
      if (result.statusCode !== undefined) {
        span.setAttribute("http.status_code", result.statusCode);
        span.setAttribute("http.response.status_code", result.statusCode);
      }
      span.setStatus(
        result.error === undefined
          ? { code: SpanStatusCode.OK }
          : { code: SpanStatusCode.ERROR, message: result.error },
      );
      return result;
    } finally {
      span.end();
    }
  }

  private async attempt(
    url: string,
    headers: Readonly<Record<string, string>>,
    body: string,
  ): Promise<WebhookPostResult> {
    const started = this.now();
    const elapsed = (): number => Math.max(0, this.now() - started);
    const requestHeaders = {
      ...headers,
      "content-type": "application/json",
      "content-length": String(Buffer.byteLength(body)),
      "user-agent": USER_AGENT,
    };
    // One deadline for the whole POST, name resolution included (timers run on the real clock).
    const deadline = Date.now() + this.timeoutMs;
    try {
      const target = await this.vet(url, deadline);
      let result = await this.send(target, requestHeaders, body, deadline, started);
      // A kept-alive connection the endpoint closed just as it was reused: send once more on a new one
      // (the endpoint saw nothing, or de-duplicates on webhook-id).
      if (result.staleConnection === true) result = await this.send(target, requestHeaders, body, deadline, started);
      const { staleConnection: _stale, answeredAfterMs, ...outcome } = result;
      return { ...outcome, durationMs: answeredAfterMs ?? elapsed(), requestHeaders };
    } catch (error) {
      if (error instanceof Refused)
        return { error: error.message, refused: true, durationMs: elapsed(), requestHeaders };
      if (error instanceof Unreachable) return { error: error.message, durationMs: elapsed(), requestHeaders };
      return { error: "the request failed", durationMs: elapsed(), requestHeaders };
    }
  }

  /** Refuses what the rules forbid; resolves the host once (before `deadline`, a Date.now() time) and returns the URL with its vetted addresses. */
  async vet(url: string, deadline = Number.POSITIVE_INFINITY): Promise<Vetted> {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new Refused("not a valid URL");
    }
    const allowPrivate = this.options.allowPrivateNetworks;
    if (parsed.protocol !== "https:" && !(allowPrivate && parsed.protocol === "http:"))
      throw new Refused("the URL must use https");
    if (parsed.username !== "" || parsed.password !== "")
      throw new Refused("the URL must not contain a user name or password");
    if (!allowPrivate && isMetadataHostName(parsed.hostname)) throw new Refused("the host is a cloud metadata service");

    const literal = ipLiteral(parsed.hostname);
    let addresses: ResolvedAddress[];
    if (literal !== undefined) addresses = [{ address: literal, family: literal.includes(":") ? 6 : 4 }];
    else {
      try {
        addresses = await beforeDeadline(this.lookup(parsed.hostname), deadline);
      } catch (error) {
        if (error instanceof TimedOut)
          throw new Unreachable(`no answer within ${this.timeoutMs / 1000} s (resolving '${parsed.hostname}')`);
        throw new Unreachable(`the host '${parsed.hostname}' could not be resolved`);
      }
      if (addresses.length === 0) throw new Unreachable(`the host '${parsed.hostname}' has no address`);
    }
    if (!allowPrivate) {
      for (const { address } of addresses) {
        const reason = refusedAddressReason(address);
        if (reason !== undefined)
          throw new Refused(
            `the URL resolves to a non-public address (${reason}); webhooks must reach public addresses`,
          );
      }
    }
    return { url: parsed, addresses, hostIsIp: literal !== undefined };
  }

  private send(
    target: Vetted,
    headers: Readonly<Record<string, string>>,
    body: string,
    deadline: number,
    started: number,
  ): Promise<Attempt> {
    const { url, addresses, hostIsIp } = target;
    const first = addresses[0]!;
    // The socket connects only to the addresses vetted above: net asks this lookup, never DNS.
    const pinned: LookupFunction = (_hostname, options, callback) => {
      if (options.all === true) (callback as unknown as (e: null, a: ResolvedAddress[]) => void)(null, addresses);
      else callback(null, first.address, first.family);
    };
    const isHttps = url.protocol === "https:";
    return new Promise((resolve) => {
      const request = (isHttps ? https : http).request(
        {
          protocol: url.protocol,
          hostname: url.hostname.replace(/^\[|\]$/g, ""),
          port: url.port === "" ? undefined : Number(url.port),
          path: `${url.pathname}${url.search}`,
          method: "POST",
          agent: isHttps ? this.httpsAgent : this.httpAgent,
          lookup: pinned,
          ...(isHttps && !hostIsIp ? { servername: url.hostname } : {}),
          headers,
        },
        (response) => {
          clearTimeout(timeout);
          // The status line is the answer: a 2xx within the time-out is a delivery, whatever the body
          // does after it. The body is read for the delivery's log (its first 4 KB) for at most a second,
          // and drained up to a limit so that the connection can be reused; beyond either it is dropped.
          const answeredAfterMs = Math.max(0, this.now() - started);
          const status = outcome(response.statusCode ?? 0, response.headers["retry-after"], this.now());
          void captureAnswer(response, BODY_DRAIN_MS, this.maxResponseBytes).then((answer) =>
            resolve({ ...status, answeredAfterMs, response: answer }),
          );
        },
      );
      // A plain timer rather than an AbortSignal per POST: the same deadline, less work per delivery.
      const timeout = setTimeout(() => request.destroy(new TimedOut()), Math.max(0, deadline - Date.now()));
      request.on("error", (error: Error & { code?: string }) => {
        clearTimeout(timeout);
        if (request.reusedSocket && error.code === "ECONNRESET" && !(error instanceof TimedOut))
          resolve({ staleConnection: true });
        else resolve({ error: describe(error, this.timeoutMs) });
      });
      request.end(body);
    });
  }

  /** Closes pooled connections (tests, shutdown). */
  close(): void {
    this.httpsAgent.destroy();
    this.httpAgent.destroy();
  }
}

type Attempt = Omit<WebhookPostResult, "durationMs" | "requestHeaders"> & {
  staleConnection?: boolean;
  /** From the start of the POST to the answer's status line. */
  answeredAfterMs?: number;
};

/** A URL the rules allow, with the addresses its host resolved to (once) and whether it named an IP. */
interface Vetted {
  url: URL;
  addresses: ResolvedAddress[];
  hostIsIp: boolean;
}

/** The POST's deadline passed. */
class TimedOut extends Error {
  override readonly name = "TimeoutError";
}

/** Rejects with TimedOut when `deadline` (a Date.now() time) comes first (a lookup cannot be cancelled, only abandoned). */
function beforeDeadline<T>(work: Promise<T>, deadline: number): Promise<T> {
  if (deadline === Number.POSITIVE_INFINITY) return work;
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new TimedOut()), Math.max(0, deadline - Date.now()));
    work.then(resolve, reject).finally(() => clearTimeout(timer));
  });
}

function outcome(
  statusCode: number,
  retryAfter: string | undefined,
  now: number,
): Omit<WebhookPostResult, "durationMs" | "requestHeaders"> {
  const seconds = retryAfterSeconds(retryAfter, now);
  const base = { statusCode, ...(seconds !== undefined ? { retryAfterSeconds: seconds } : {}) };
  if (statusCode >= 200 && statusCode < 300) return base;
  if (statusCode >= 300 && statusCode < 400)
    return { ...base, error: `the endpoint answered ${statusCode} (a redirect, which is not followed)` };
  return { ...base, error: `the endpoint answered ${statusCode}` };
}

function describe(error: Error & { code?: string }, timeoutMs: number): string {
  if (error.name === "AbortError" || error.name === "TimeoutError") return `no answer within ${timeoutMs / 1000} s`;
  switch (error.code) {
    case "ECONNREFUSED":
      return "the connection was refused";
    case "ECONNRESET":
      return "the connection was reset";
    case "EHOSTUNREACH":
    case "ENETUNREACH":
      return "the host is unreachable";
    default:
      return error.code !== undefined && /^(ERR_TLS|CERT_|UNABLE_TO|DEPTH_ZERO|SELF_SIGNED)/.test(error.code)
        ? `the TLS handshake failed (${error.code})`
        : "the connection failed";
  }
}
