import { OpenAPIRegistry, OpenApiGeneratorV31 } from "@asteasolutions/zod-to-openapi";
import { z } from "zod";
import type { AnyEndpoint, SuccessResponse } from "./endpoint";

const errorSchema = z
  .object({
    error: z.object({
      code: z.enum([
        "INVALID_REQUEST",
        "UNAUTHORIZED",
        "FORBIDDEN",
        "NOT_FOUND",
        "METHOD_NOT_ALLOWED",
        "CONFLICT",
        "PAYLOAD_TOO_LARGE",
        "REQUEST_HEADER_FIELDS_TOO_LARGE",
        "VALIDATION_ERROR",
        "RATE_LIMIT_EXCEEDED",
        "INTERNAL_ERROR",
        "SERVICE_UNAVAILABLE",
      ]),
      message: z.string(),
      details: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
      requestId: z.string(),
    }),
  })
  .meta({ id: "Error" });

const oauthErrorSchema = z
  .object({
    error: z.enum([
      "invalid_request",
      "invalid_client",
      "unsupported_grant_type",
      "invalid_scope",
      "temporarily_unavailable",
      "server_error",
    ]),
    error_description: z.string(),
  })
  .meta({ id: "OAuthError" });

const oauthDescriptions: Record<number, string> = {
  400: "invalid_request, unsupported_grant_type or invalid_scope (RFC 6749 §5.2)",
  401: "invalid_client: unknown client, wrong secret or disabled client; carries `WWW-Authenticate: Basic` when the client used HTTP Basic or sent no credentials, none after form credentials",
  429: "temporarily_unavailable: too many requests from this address; see Retry-After",
  500: "server_error",
  503: "temporarily_unavailable",
};

const errorDescriptions: Record<number, string> = {
  400: "INVALID_REQUEST: malformed request (including a malformed id or percent-encoding in the path), bad query parameter or body that is not a JSON object",
  401: "UNAUTHORIZED: token missing, malformed, expired, wrongly signed, or its client disabled",
  403: "FORBIDDEN: the token lacks the required scope",
  404: "NOT_FOUND: the resource does not exist",
  409: "CONFLICT: duplicate or illegal state change",
  413: "PAYLOAD_TOO_LARGE: the body exceeds the endpoint's limit",
  422: "VALIDATION_ERROR: the body failed validation; details name each field",
  429: "RATE_LIMIT_EXCEEDED: too many requests; see Retry-After",
  500: "INTERNAL_ERROR: unexpected server error",
  503: "SERVICE_UNAVAILABLE: temporarily unavailable",
};

const rateLimitHeaders = {
  "X-RateLimit-Limit": { description: "Requests allowed per minute", schema: { type: "integer" as const } },
  "X-RateLimit-Remaining": {
    description: "Requests left in the tighter of the minute and day windows",
    schema: { type: "integer" as const },
  },
  "X-RateLimit-Reset": {
    description: "Unix epoch seconds when that window resets",
    schema: { type: "integer" as const },
  },
  "X-Request-Id": { description: "Request identifier, also error.requestId", schema: { type: "string" as const } },
};

export interface ExtraPath {
  register(registry: OpenAPIRegistry): void;
}

/** The OpenAPI 3.1 document, generated from the zod schemas the endpoints validate with. */
export function buildOpenApiDocument(endpoints: readonly AnyEndpoint[], extras: readonly ExtraPath[] = []): object {
  const registry = new OpenAPIRegistry();
  const bearer = registry.registerComponent("securitySchemes", "bearerAuth", {
    type: "http",
    scheme: "bearer",
    bearerFormat: "JWT",
    description: "Access token from POST /auth/token (client credentials). Scopes: api.read, api.write, api.admin.",
  });
  for (const extra of extras) extra.register(registry);
  for (const ep of endpoints) {
    if (ep.hidden === true || ep.method === "ANY") continue;
    const errors = new Set([400, 429, 500, 503, ...(ep.scope !== null ? [401, 403] : []), ...(ep.errors ?? [])]);
    if (ep.body !== undefined) errors.add(422);
    const responses: Record<string, object> = {};
    for (const ok of ep.responses) responses[String(ok.status)] = successResponse(ok);
    for (const status of [...errors].sort()) {
      responses[String(status)] = {
        description:
          ep.oauthErrors === true ? (oauthDescriptions[status] ?? "Error") : (errorDescriptions[status] ?? "Error"),
        headers: rateLimitHeaders,
        content: { "application/json": { schema: ep.oauthErrors === true ? oauthErrorSchema : errorSchema } },
      };
    }
    const method = ep.method.toLowerCase() as "get" | "post" | "patch" | "put" | "delete";
    const security =
      ep.scope !== null
        ? { security: [{ [bearer.name]: [ep.scope] }], description: `Requires scope \`${ep.scope}\`.` }
        : { security: [] };
    for (const variant of ep.docVariants ?? []) {
      registry.registerPath({
        method,
        path: `/${variant.route}`,
        operationId: variant.operationId,
        summary: variant.summary,
        tags: [ep.tag],
        ...security,
        request: {
          ...(ep.docHeaders !== undefined ? { headers: ep.docHeaders } : {}),
          body: { required: true, content: { "application/json": { schema: variant.body } } },
        },
        responses,
      });
    }
    registry.registerPath({
      method,
      path: `/${ep.route}`,
      operationId: ep.name,
      summary: ep.summary,
      tags: [ep.tag],
      ...security,
      request: {
        ...(ep.params !== undefined ? { params: ep.params as z.ZodObject } : {}),
        ...(ep.query !== undefined ? { query: ep.query as z.ZodObject } : {}),
        ...(ep.docHeaders !== undefined ? { headers: ep.docHeaders } : {}),
        ...(ep.body !== undefined
          ? { body: { required: true, content: { "application/json": { schema: ep.docBody ?? ep.body } } } }
          : {}),
        ...(ep.rawBody === "bytes"
          ? {
              body: {
                required: true,
                description: ep.rawBodyDescription,
                content: { "application/octet-stream": { schema: z.string().meta({ format: "binary" }) } },
              },
            }
          : {}),
        ...(ep.formBody !== undefined
          ? { body: { required: true, content: { "application/x-www-form-urlencoded": { schema: ep.formBody } } } }
          : {}),
      },
      responses,
    });
  }
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: "3.1.0",
    info: {
      title: "Investment Data Service",
      version: "1.0.0",
      description:
        "Portfolios, holdings, securities, prices, FX rates and transactions. Every response carries X-Request-Id and the X-RateLimit-* headers.",
    },
    servers: [{ url: "/" }],
  });
}

function successResponse(ok: SuccessResponse): object {
  return {
    description: ok.description,
    headers: {
      ...rateLimitHeaders,
      ...Object.fromEntries(
        Object.entries(ok.headers ?? {}).map(([k, d]) => [k, { description: d, schema: { type: "string" } }]),
      ),
    },
    ...(ok.contentType !== undefined
      ? { content: { [ok.contentType]: { schema: z.string().meta({ format: "binary" }) } } }
      : ok.schema !== undefined
        ? { content: { "application/json": { schema: ok.schema } } }
        : {}),
  };
}
