import type { HttpRequest } from "@azure/functions";
import { z } from "zod";
import { OAuthError, type TokenRequest } from "../shared/app/issue-token";
import { services } from "../shared/composition";
import { AppError } from "../shared/domain/errors";
import { endpoint, type EndpointResult } from "../shared/http/endpoint";
import { errorResult } from "../shared/http/error-response";
import type { ErrorShaper } from "../shared/http/pipeline";
import { registerEndpoint } from "../shared/http/registry";

const tokenForm = z.object({
  grant_type: z.literal("client_credentials"),
  client_id: z.string().optional().meta({ description: "Or use HTTP Basic authentication" }),
  client_secret: z.string().optional().meta({ description: "Or use HTTP Basic authentication" }),
  scope: z.string().optional().meta({ description: "Space-separated scopes; omitted means every scope the client holds" }),
});

const tokenResponse = z
  .object({
    access_token: z.string(),
    token_type: z.literal("Bearer"),
    expires_in: z.number().int().meta({ example: 3600 }),
    scope: z.string().meta({ example: "api.read" }),
  })
  .meta({ id: "TokenResponse" });

const noStore = { "Cache-Control": "no-store", Pragma: "no-cache" };

export const authToken = endpoint({
  name: "auth-token",
  method: "POST",
  route: "auth/token",
  summary: "Get an access token (OAuth 2.0 client credentials, RFC 6749 §4.4)",
  tag: "Authentication",
  scope: null,
  formBody: tokenForm,
  oauthErrors: true,
  errors: [401],
  responses: [{ status: 200, description: "The access token", schema: tokenResponse }],
  async handle({ request }) {
    const tokenRequest = await readTokenRequest(request);
    const token = await services().issueToken().execute(tokenRequest);
    return { status: 200, body: token, headers: noStore };
  },
});

async function readTokenRequest(request: HttpRequest): Promise<TokenRequest> {
  const contentType = request.headers.get("content-type") ?? "";
  if (!contentType.toLowerCase().startsWith("application/x-www-form-urlencoded")) {
    throw new OAuthError("invalid_request", "The body must be application/x-www-form-urlencoded");
  }
  const text = await request.text();
  if (text.length > 8192) throw new OAuthError("invalid_request", "The request body is too large");
  const form = new URLSearchParams(text);
  for (const key of new Set(form.keys())) {
    if (form.getAll(key).length > 1) throw new OAuthError("invalid_request", `The parameter ${key} is repeated`);
  }
  const basic = parseBasic(request.headers.get("authorization"));
  const formId = form.get("client_id") ?? undefined;
  const formSecret = form.get("client_secret") ?? undefined;
  if (basic !== undefined && (formId !== undefined || formSecret !== undefined)) {
    throw new OAuthError("invalid_request", "Use either HTTP Basic or form credentials, not both");
  }
  return {
    grantType: form.get("grant_type") ?? undefined,
    clientId: basic?.clientId ?? formId,
    clientSecret: basic?.clientSecret ?? formSecret,
    scope: form.get("scope") ?? undefined,
  };
}

/** RFC 6749 §2.3.1: Basic credentials are form-urlencoded before base64. */
function parseBasic(header: string | null): { clientId: string; clientSecret: string } | undefined {
  if (header === null) return undefined;
  const match = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(header.trim());
  if (match?.[1] === undefined) throw new OAuthError("invalid_client", "Client authentication failed");
  const decoded = Buffer.from(match[1], "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon < 0) throw new OAuthError("invalid_client", "Client authentication failed");
  try {
    return {
      clientId: decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, " ")),
      clientSecret: decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, " ")),
    };
  } catch {
    throw new OAuthError("invalid_client", "Client authentication failed");
  }
}

/** The token endpoint answers in RFC 6749 §5.2's shape, which OAuth client libraries parse. */
const oauthError: ErrorShaper = (error, requestId, log): EndpointResult => {
  if (error instanceof OAuthError) {
    const headers: Record<string, string> = { ...noStore };
    if (error.status === 401) headers["WWW-Authenticate"] = 'Basic realm="auth/token", charset="UTF-8"';
    return { status: error.status, body: { error: error.error, error_description: error.description }, headers };
  }
  if (error instanceof AppError && error.code === "RATE_LIMIT_EXCEEDED") {
    return { status: 429, body: { error: "temporarily_unavailable", error_description: error.message }, headers: { ...error.headers, ...noStore } };
  }
  const shaped = errorResult(error, requestId, log);
  const code = shaped.status === 503 ? "temporarily_unavailable" : "server_error";
  return { status: shaped.status, body: { error: code, error_description: "The token could not be issued; retry later" }, headers: { ...shaped.headers, ...noStore } };
};

registerEndpoint(authToken, oauthError);
