import type { HttpHandler, HttpRequest, HttpResponseInit, InvocationContext } from "@azure/functions";
import type { z } from "zod";
import type { Principal } from "../domain/principal";
import { requireScope } from "../app/access/authenticator";
import type { RateLimitDecision } from "../app/access/rate-limiter";
import { services, type Composition } from "../composition";
import { ConfigError } from "../config";
import { AppError } from "../domain/errors";
import { findUnstorable, mayHoldUnstorableUtf8, printable, unstorableIn } from "../domain/storable";
import { issuesToDetails } from "../domain/validation";
import { contextSink, Logger } from "../logging";
import { traceIdOf } from "../observability/trace-context";
import { withWriteContext } from "../observability/write-context";
import { inInvocationTrace, invocationTraceparent } from "../triggers/invocation-log";
import type { AnyEndpoint, EndpointResult } from "./endpoint";
import { errorResult } from "./error-response";
import { requestIdOf, sourceAddress } from "./request-info";

const DEFAULT_MAX_BODY = 1024 * 1024;
/** As many as an import's validation names at most. */
const MAX_UNSTORABLE_DETAILS = 1000;

/** Shapes an error for this endpoint's clients; the token endpoint overrides it with RFC 6749's shape. */
export type ErrorShaper = (error: unknown, requestId: string, log: Logger) => EndpointResult;

/**
 * The pipeline every HTTP function runs: request id, authentication, rate limit, scope, input
 * validation, the handler, errors in the spec's shape, and the standard headers on every response.
 */
export function httpHandler(endpoint: AnyEndpoint, shapeError: ErrorShaper = errorResult): HttpHandler {
  const handle = async (request: HttpRequest, context: InvocationContext): Promise<HttpResponseInit> => {
    const started = performance.now();
    const requestId = requestIdOf(request);
    const traceparent = invocationTraceparent(context);
    const composed = composition();
    const log = new Logger(composed instanceof ConfigError ? "info" : composed.config.LOG_LEVEL, contextSink(context), {
      requestId,
      function: endpoint.name,
      ...(traceparent !== undefined ? { traceId: traceIdOf(traceparent) } : {}),
    });
    if (composed instanceof ConfigError) return unavailable(composed, requestId, log, shapeError);
    const svc = composed;
    let rate: RateLimitDecision | undefined;
    let principal: Principal | undefined;
    let result: EndpointResult;
    try {
      // Boxed: whatever the authenticator threw is thrown again, after the rate limit has counted the call.
      let authError: { error: unknown } | undefined;
      if (endpoint.scope !== null) {
        try {
          principal = await svc.access.authenticator().authenticate(request.headers.get("authorization"));
        } catch (error) {
          authError = { error };
        }
      }
      if (endpoint.rateLimited !== false) {
        rate = await svc.access
          .rateLimiter()
          .consume(
            principal ? `client:${principal.clientId}` : `ip:${sourceAddress(request)}`,
            principal?.tier ?? "anonymous",
          );
      }
      if (rate?.exceeded === true) {
        throw new AppError("RATE_LIMIT_EXCEEDED", "Too many requests; see Retry-After", {
          headers: { "Retry-After": String(rate.retryAfter ?? 1) },
        });
      }
      if (authError !== undefined) throw authError.error;
      if (endpoint.scope !== null && principal !== undefined) requireScope(principal, endpoint.scope);
      const params = parsePart(endpoint.params, request.params, "path");
      const query = parsePart(endpoint.query, Object.fromEntries(request.query.entries()), "query");
      const read =
        endpoint.body === undefined ? undefined : await readBody(request, endpoint.maxBodyBytes ?? DEFAULT_MAX_BODY);
      const raw = read?.text;
      const body = endpoint.body === undefined || read === undefined ? undefined : parseBody(endpoint.body, read);
      const bytes =
        endpoint.rawBody === "bytes" ? await readBytes(request, endpoint.maxBodyBytes ?? DEFAULT_MAX_BODY) : undefined;
      // The versions a write records name the client and this request (API.md, "Time travel"); a change
      // through System Settings is audited (API.md, "Settings audit trail").
      const audited = endpoint.method !== "GET" && endpoint.route.startsWith("api/v1/settings/");
      result = await withWriteContext({ recordedBy: principal?.clientId ?? "anonymous", requestId, audited }, () =>
        endpoint.handle({ params, query, body, rawBody: raw, bytes, principal, request, requestId, log }),
      );
    } catch (error) {
      result = shapeError(error, requestId, log);
    }
    const headers: Record<string, string> = { "X-Request-Id": requestId };
    if (rate !== undefined) {
      headers["X-RateLimit-Limit"] = String(rate.limit);
      headers["X-RateLimit-Remaining"] = String(rate.remaining);
      headers["X-RateLimit-Reset"] = String(rate.reset);
    }
    if (result.body !== undefined) headers["Content-Type"] = "application/json; charset=utf-8";
    Object.assign(headers, result.headers);
    if (log.enabled("info")) {
      log.info("request", {
        method: request.method,
        path: new URL(request.url).pathname,
        status: result.status,
        clientId: principal?.clientId,
        durationMs: Math.round((performance.now() - started) * 10) / 10,
      });
    }
    if (result.bytes !== undefined) return { status: result.status, headers, body: result.bytes };
    if (result.stream !== undefined) return { status: result.status, headers, body: result.stream };
    return {
      status: result.status,
      headers,
      ...(result.body !== undefined ? { body: JSON.stringify(result.body) } : {}),
    };
  };
  // In the request's trace context: the outbox entries it appends and the messages it sends continue the request's trace.
  return (request, context) => inInvocationTrace(context, () => handle(request, context));
}

/** The composition root, or why the app's settings make it impossible. */
function composition(): Composition | ConfigError {
  try {
    return services();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
}

/** When the app's settings were last reported unusable in the log (once a minute, not once a request). */
let lastReported = 0;

/**
 * The answer of every HTTP function while the app's settings are unusable (an unresolved Key Vault
 * reference): 503 in the error shape, with nothing of the settings in it; the log names them.
 */
function unavailable(problem: ConfigError, requestId: string, log: Logger, shapeError: ErrorShaper): HttpResponseInit {
  if (Date.now() - lastReported > 60_000) {
    lastReported = Date.now();
    log.error("the app's settings are unusable: every request answers 503 until they are fixed", {
      settings: problem.settings,
      problems: problem.message,
    });
  }
  const result = shapeError(
    new AppError("SERVICE_UNAVAILABLE", "The service is unavailable: it is misconfigured, and its operators are told", {
      headers: { "Retry-After": "60" },
    }),
    requestId,
    log,
  );
  const headers: Record<string, string> = { "X-Request-Id": requestId, ...result.headers };
  if (result.body === undefined) return { status: result.status, headers };
  return {
    status: result.status,
    headers: { ...headers, "Content-Type": "application/json; charset=utf-8" },
    body: JSON.stringify(result.body),
  };
}

function parsePart(schema: z.ZodType | undefined, input: Record<string, string>, where: "path" | "query"): never {
  if (schema === undefined) return undefined as never;
  // A value no store can hold never reaches a schema, a use case or a store path (a lone surrogate
  // makes the storage SDKs throw URIError while building the request URL).
  const unstorable = Object.entries(input).flatMap(([name, value]) => {
    const why = unstorableIn(value);
    return why === undefined ? [] : [{ field: printable(name), message: why }];
  });
  if (unstorable.length > 0) {
    throw new AppError("INVALID_REQUEST", `Invalid ${where} parameter`, { details: unstorable });
  }
  const parsed = schema.safeParse(input);
  if (!parsed.success) {
    throw new AppError("INVALID_REQUEST", `Invalid ${where} parameter`, {
      details: issuesToDetails(parsed.error.issues),
    });
  }
  return parsed.data as never;
}

/** The body's text, decoded as request.text() decodes it (UTF-8, a BOM dropped, bad bytes replaced), and its bytes. */
async function readBody(request: HttpRequest, maxBytes: number): Promise<{ text: string; bytes: Buffer }> {
  const bytes = await readBytes(request, maxBytes);
  return { text: new TextDecoder().decode(bytes), bytes };
}

/** The body as bytes, whatever its content type: a file in a legacy encoding or a zip reaches the handler unchanged. */
async function readBytes(request: HttpRequest, maxBytes: number): Promise<Buffer> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > maxBytes) throw tooLarge(maxBytes);
  const bytes = Buffer.from(await request.arrayBuffer());
  if (bytes.length > maxBytes) throw tooLarge(maxBytes);
  return bytes;
}

function parseBody(schema: z.ZodType, { text, bytes }: { text: string; bytes: Buffer }): never {
  if (text.trim() === "") throw new AppError("INVALID_REQUEST", "A JSON request body is required");
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new AppError("INVALID_REQUEST", "The request body is not valid JSON");
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    throw new AppError("INVALID_REQUEST", "The request body must be a JSON object");
  }
  // A few byte searches; only a body that may hold an unstorable string is walked value by value.
  const unstorable = mayHoldUnstorableUtf8(bytes) ? findUnstorable(json, MAX_UNSTORABLE_DETAILS) : [];
  if (unstorable.length > 0) {
    throw new AppError("VALIDATION_ERROR", "The request body holds text no store can hold; nothing was written", {
      details: unstorable,
    });
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    throw new AppError("VALIDATION_ERROR", "The request body failed validation", {
      details: issuesToDetails(parsed.error.issues),
    });
  }
  return parsed.data as never;
}

const tooLarge = (maxBytes: number): AppError =>
  new AppError(
    "PAYLOAD_TOO_LARGE",
    `The request body exceeds the limit of ${maxBytes % 1048576 === 0 ? `${maxBytes / 1048576} MB` : `${maxBytes} bytes`}`,
  );
