import { randomUUID } from "node:crypto";
import { errorFields, type Logger } from "../shared/logging";
import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { Readable, type Duplex } from "node:stream";
import { pipeline } from "node:stream/promises";
import { HttpRequest, type HttpResponseInit } from "@azure/functions";
import { compileRoute, type RouteTemplate } from "../shared/http/route-template";
import { currentTraceparent, parseTraceparent } from "../shared/observability/trace-context";
import { invoke, type LoadedFunction } from "./functions-host";

interface Route {
  fn: LoadedFunction;
  methods: Set<string>;
  template: RouteTemplate;
}

const MAX_BODY_BYTES = 110 * 1024 * 1024;
/** The request line and headers together, as Node's default and the Functions front end allow. */
const MAX_HEADER_BYTES = 16 * 1024;

export interface HttpHostOptions {
  port: number;
  host: string;
  routePrefix: string;
  log: Logger;
}

/** Serves the HTTP-triggered functions over node's http server, as the Functions host would. */
export class HttpHost {
  private readonly routes: Route[];
  private server: Server | undefined;

  constructor(
    functions: LoadedFunction[],
    private readonly options: HttpHostOptions,
  ) {
    this.routes = functions
      .filter((f) => f.trigger.type === "httpTrigger")
      .map((fn) => {
        const route = typeof fn.trigger.route === "string" ? fn.trigger.route : fn.name;
        const prefix = options.routePrefix.replace(/^\/+|\/+$/g, "");
        const methods = new Set(
          (
            (fn.trigger.methods as string[] | undefined) ?? ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]
          ).map((m) => m.toUpperCase()),
        );
        return { fn, methods, template: compileRoute(prefix === "" ? route : `${prefix}/${route}`) };
      })
      // Literal routes first, catch-alls last, as ASP.NET route precedence does.
      .sort(
        (a, b) =>
          Number(a.template.catchAll) - Number(b.template.catchAll) || b.template.literals - a.template.literals,
      );
  }

  async start(): Promise<number> {
    const server = createServer({ keepAlive: true, maxHeaderSize: MAX_HEADER_BYTES }, (req, res) => {
      this.handle(req, res).catch((error: unknown) => {
        this.options.log.error("local host failure", errorFields(error));
        if (!res.headersSent) res.writeHead(500, { "Content-Type": "application/json" });
        res.end(
          JSON.stringify({
            error: { code: "INTERNAL_ERROR", message: "An unexpected error occurred", requestId: "local-host" },
          }),
        );
      });
    });
    // Node answers a request it cannot parse (too large headers or URL, bad syntax) with a bare
    // status line; clients get the service's error object instead.
    server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => rejectRequest(error, socket));
    server.keepAliveTimeout = 65_000;
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(this.options.port, this.options.host, () => resolve());
    });
    const address = server.address();
    return typeof address === "object" && address !== null ? address.port : this.options.port;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (server === undefined) return;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", `http://${req.headers.host ?? `${this.options.host}:${this.options.port}`}`);
    const method = (req.method ?? "GET").toUpperCase();
    let matched: { route: Route; params: Record<string, string> } | undefined;
    // As the Functions host: its admin API (/admin/…, but /admin/warmup) is never routed to a function,
    // whatever routes match it. (Its other paths, /runtime/webhooks/…, get no such protection.)
    const adminPath = /^\/admin(\/|$)/i.test(url.pathname) && !/^\/admin\/warmup(\/|$)/i.test(url.pathname);
    for (const route of adminPath ? [] : this.routes) {
      if (!route.methods.has(method)) continue;
      const params = route.template.match(url.pathname);
      if (params === undefined) continue;
      matched = { route, params };
      break;
    }
    if (matched === undefined) {
      res.writeHead(404).end();
      return;
    }
    const body = await readBody(req);
    if (body === undefined) {
      res.writeHead(413, { "Content-Type": "application/json" }).end(
        JSON.stringify({
          error: { code: "PAYLOAD_TOO_LARGE", message: "The request body is too large", requestId: "local-host" },
        }),
      );
      return;
    }
    const headers: Record<string, string> = {};
    for (const [key, value] of Object.entries(req.headers)) {
      if (value !== undefined) headers[key] = Array.isArray(value) ? value.join(", ") : value;
    }
    // The platform front end sets the caller's address; a client cannot choose it.
    headers["x-forwarded-for"] = req.socket.remoteAddress ?? "unknown";
    const request = new HttpRequest({
      method,
      url: url.toString(),
      headers,
      params: matched.params,
      ...(body.length > 0 && method !== "GET" && method !== "HEAD" ? { body: { bytes: body } } : {}),
    });
    // The request's trace, as the Functions host continues the caller's `traceparent`: the server span the
    // http instrumentation records when Application Insights is on, else the header (a new trace without one).
    const parent = currentTraceparent() ?? parseTraceparent(req.headers.traceparent);
    const result = (await invoke(matched.route.fn, [request], {
      log: this.options.log,
      ...(parent !== undefined ? { parent } : {}),
    })) as HttpResponseInit | undefined;
    await writeResponse(res, result ?? { status: 204 }, method, this.options.log);
  }
}

/** Answers a request Node could not parse with the error object, then closes the connection. */
function rejectRequest(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (!socket.writable || error.code === "ECONNRESET") {
    socket.destroy();
    return;
  }
  const tooLarge = error.code === "HPE_HEADER_OVERFLOW" || error.code === "HPE_REQUEST_HEADER_FIELDS_TOO_LARGE";
  const status = tooLarge ? 431 : 400;
  const requestId = randomUUID();
  const body = JSON.stringify({
    error: tooLarge
      ? {
          code: "REQUEST_HEADER_FIELDS_TOO_LARGE",
          message: `The request line and headers exceed ${MAX_HEADER_BYTES / 1024} KB; send less in headers and the query string`,
          requestId,
        }
      : { code: "INVALID_REQUEST", message: "The request could not be parsed as HTTP", requestId },
  });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ""}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
  );
}

function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) tooLarge = true;
      else chunks.push(chunk);
    });
    req.on("end", () => resolve(tooLarge ? undefined : Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

/**
 * Writes the function's answer. A stream body (a Node Readable, a web ReadableStream or an async
 * iterable of bytes, as the Functions library accepts) is piped as it is read, with backpressure,
 * never gathered first; a source that fails midway aborts the connection, so the client cannot take a
 * cut-short body for the whole.
 */
async function writeResponse(res: ServerResponse, init: HttpResponseInit, method: string, log: Logger): Promise<void> {
  const headers: Record<string, string> = {};
  const source = init.headers;
  if (source instanceof Headers) source.forEach((value, key) => (headers[key] = value));
  else if (Array.isArray(source)) for (const [k, v] of source) headers[k] = v;
  else if (source !== undefined) Object.assign(headers, source);
  let payload: string | Buffer | undefined;
  if (init.jsonBody !== undefined) {
    payload = JSON.stringify(init.jsonBody);
    headers["Content-Type"] ??= "application/json";
  } else if (typeof init.body === "string") payload = init.body;
  else if (init.body instanceof Uint8Array) payload = Buffer.from(init.body);
  else if (isStreamBody(init.body)) {
    const body = init.body;
    const stream =
      body instanceof Readable ? body : body instanceof ReadableStream ? Readable.fromWeb(body) : Readable.from(body);
    res.writeHead(init.status ?? 200, headers);
    if (method === "HEAD") {
      stream.destroy();
      res.end();
      return;
    }
    try {
      await pipeline(stream, res);
    } catch (error) {
      // The client hung up (nothing to tell), or the source failed after the status was sent (pipeline
      // has destroyed the response then: the client sees the connection cut, not a whole file).
      if ((error as NodeJS.ErrnoException).code !== "ERR_STREAM_PREMATURE_CLOSE")
        log.error("a streamed response failed midway", errorFields(error));
    }
    return;
  }
  if (payload !== undefined) headers["Content-Length"] = String(Buffer.byteLength(payload));
  res.writeHead(init.status ?? 200, headers);
  res.end(method === "HEAD" ? undefined : payload);
}

/** A body to pipe rather than to send at once. */
function isStreamBody(body: HttpResponseInit["body"]): body is Readable | ReadableStream | AsyncIterable<Uint8Array> {
  return (
    body instanceof Readable ||
    body instanceof ReadableStream ||
    (typeof body === "object" && body !== null && Symbol.asyncIterator in body)
  );
}
