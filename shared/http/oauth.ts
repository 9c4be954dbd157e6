import type { HttpRequest } from "@azure/functions";
import { OAuthError, type TokenRequest } from "../app/access/issue-token";
import { AppError } from "../domain/errors";
import type { EndpointResult } from "./endpoint";
import { errorResult } from "./error-response";
import type { ErrorShaper } from "./pipeline";

const MAX_FORM_BYTES = 8192;

/** RFC 6749 §5.1: token responses and their errors must not be cached. */
export const noStore = { "Cache-Control": "no-store", Pragma: "no-cache" };

/**
 * Reads a client credentials token request (RFC 6749 §4.4): a form-encoded body, with the client's
 * credentials either in the form or in HTTP Basic (§2.3.1), never both.
 */
export async function readTokenRequest(request: HttpRequest): Promise<TokenRequest> {
  const contentType = request.headers.get("content-type") ?? "";
  if (!contentType.toLowerCase().startsWith("application/x-www-form-urlencoded")) {
    throw new OAuthError("invalid_request", "The body must be application/x-www-form-urlencoded");
  }
  const text = await request.text();
  if (text.length > MAX_FORM_BYTES) throw new OAuthError("invalid_request", "The request body is too large");
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
    clientAuth: basic !== undefined ? "basic" : formId !== undefined || formSecret !== undefined ? "form" : "none",
    scope: form.get("scope") ?? undefined,
  };
}

/** RFC 6749 §2.3.1: Basic credentials are form-urlencoded before base64. */
function parseBasic(header: string | null): { clientId: string; clientSecret: string } | undefined {
  if (header === null) return undefined;
  const failed = (): OAuthError =>
    new OAuthError("invalid_client", "Client authentication failed", { clientAuth: "basic" });
  const match = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(header.trim());
  if (match?.[1] === undefined) throw failed();
  const decoded = Buffer.from(match[1], "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon < 0) throw failed();
  try {
    return {
      clientId: decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, " ")),
      clientSecret: decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, " ")),
    };
  } catch {
    throw failed();
  }
}

/**
 * The token endpoint answers in RFC 6749 §5.2's shape, which OAuth client libraries parse. An
 * `invalid_client` carries a Basic challenge only when the client tried HTTP Basic (or sent no
 * credentials at all): §5.2 requires it then, and a challenge after form credentials makes some
 * libraries report an HTTP authentication failure instead of the OAuth error.
 */
export const oauthErrorResult: ErrorShaper = (error, requestId, log): EndpointResult => {
  if (error instanceof OAuthError) {
    const headers: Record<string, string> = { ...noStore };
    if (error.status === 401 && error.clientAuth !== "form")
      headers["WWW-Authenticate"] = 'Basic realm="auth/token", charset="UTF-8"';
    return { status: error.status, body: { error: error.error, error_description: error.description }, headers };
  }
  if (error instanceof AppError && error.code === "RATE_LIMIT_EXCEEDED") {
    return {
      status: 429,
      body: { error: "temporarily_unavailable", error_description: error.message },
      headers: { ...error.headers, ...noStore },
    };
  }
  const shaped = errorResult(error, requestId, log);
  const code = shaped.status === 503 ? "temporarily_unavailable" : "server_error";
  return {
    status: shaped.status,
    body: { error: code, error_description: "The token could not be issued; retry later" },
    headers: { ...shaped.headers, ...noStore },
  };
};
