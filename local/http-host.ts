import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { HttpRequest, type HttpResponseInit } from "@azure/functions";
import { invocationContext, type LoadedFunction } from "./functions-host";

interface Route {
  fn: LoadedFunction;
  methods: Set<string>;
  pattern: RegExp;
  names: string[];
  catchAll: boolean;
  literals: number;
}

const MAX_BODY_BYTES = 110 * 1024 * 1024;

/** Compiles a Functions route template (`a/{id}/b`, `{*rest}`, `{id?}`, `{id:int}`) to a RegExp. */
function compile(template: string): { pattern: RegExp; names: string[]; catchAll: boolean; literals: number } {
  const names: string[] = [];
  let catchAll = false;
  let literals = 0;
  const parts = template
    .replace(/^\/+|\/+$/g, "")
    .split("/")
    .map((segment) => {
      const param = /^\{(\*?)([A-Za-z0-9_]+)(?::[^}?]*)?(\??)\}$/.exec(segment);
      if (param === null) {
        literals++;
        return `/${segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`;
      }
      names.push(param[2] ?? "");
      if (param[1] === "*") {
        catchAll = true;
        return "(?:/(.*))?";
      }
      return param[3] === "?" ? "(?:/([^/]+))?" : "/([^/]+)";
    });
  return { pattern: new RegExp(`^${parts.join("")}/?$`, "i"), names, catchAll, literals };
}

export interface HttpHostOptions {
  port: number;
  host: string;
  routePrefix: string;
  log: (line: string) => void;
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
        const route = String(fn.trigger.route ?? fn.name);
        const prefix = options.routePrefix.replace(/^\/+|\/+$/g, "");
        const methods = new Set(((fn.trigger.methods as string[] | undefined) ?? ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]).map((m) => m.toUpperCase()));
        return { fn, methods, ...compile(prefix === "" ? route : `${prefix}/${route}`) };
      })
      // Literal routes first, catch-alls last, as ASP.NET route precedence does.
      .sort((a, b) => Number(a.catchAll) - Number(b.catchAll) || b.literals - a.literals);
  }

  async start(): Promise<number> {
    const server = createServer({ keepAlive: true }, (req, res) => {
      this.handle(req, res).catch((error: unknown) => {
        this.options.log(`local host failure: ${error instanceof Error ? error.stack : String(error)}`);
        if (!res.headersSent) res.writeHead(500, { "Content-Type": "application/json" });
        res.end(JSON.stringify({ error: { code: "INTERNAL_ERROR", message: "An unexpected error occurred", requestId: "local-host" } }));
      });
    });
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
    let path: string;
    try {
      path = decodeURIComponent(url.pathname);
    } catch {
      path = url.pathname;
    }
    let matched: { route: Route; params: Record<string, string> } | undefined;
    for (const route of this.routes) {
      if (!route.methods.has(method)) continue;
      const m = route.pattern.exec(path);
      if (m === null) continue;
      const params: Record<string, string> = {};
      route.names.forEach((name, i) => {
        const value = m[i + 1];
        if (value !== undefined) params[name] = value;
      });
      matched = { route, params };
      break;
    }
    if (matched === undefined) {
      res.writeHead(404).end();
      return;
    }
    const body = await readBody(req);
    if (body === undefined) {
      res.writeHead(413, { "Content-Type": "application/json" }).end(JSON.stringify({ error: { code: "PAYLOAD_TOO_LARGE", message: "The request body is too large", requestId: "local-host" } }));
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
    const context = invocationContext(matched.route.fn.name, this.options.log);
    const result = (await matched.route.fn.handler(request, context)) as HttpResponseInit | undefined;
    writeResponse(res, result ?? { status: 204 }, method);
  }
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

function writeResponse(res: ServerResponse, init: HttpResponseInit, method: string): void {
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
  if (payload !== undefined) headers["Content-Length"] = String(Buffer.byteLength(payload));
  res.writeHead(init.status ?? 200, headers);
  res.end(method === "HEAD" ? undefined : payload);
}
