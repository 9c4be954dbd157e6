import { AppError } from "../shared/domain/errors";
import { endpoint } from "../shared/http/endpoint";
import { allowedMethods, registerEndpoint } from "../shared/http/registry";

/**
 * Catch-all: the error object for unknown routes (404) and wrong methods (405 with Allow), on every
 * path but the Functions host's own. With the empty route prefix (host.json) a bare `{*path}` would
 * also match `/runtime/webhooks/blobs`, where Event Grid delivers the blob trigger's events (and does
 * its validation handshake), and `/admin/…`: the host answers those, not the API.
 */
export const notFound = endpoint({
  name: "not-found",
  method: "ANY",
  route: "{*path:regex(^(?!(admin|runtime)(\\W|$)).*$)}",
  summary: "Unknown route",
  tag: "Meta",
  scope: null,
  hidden: true,
  responses: [],
  async handle({ request }) {
    const path = new URL(request.url).pathname;
    try {
      decodeURIComponent(path);
    } catch {
      // `%ZZ` or a lone `%`: the client sent a path no route could ever match.
      throw new AppError("INVALID_REQUEST", "The request path has malformed percent-encoding", {
        details: [{ field: "path", message: "every % must start a valid UTF-8 escape such as %20" }],
      });
    }
    const allowed = allowedMethods(path);
    if (allowed.length > 0) {
      throw new AppError("METHOD_NOT_ALLOWED", `${request.method} is not allowed here; use ${allowed.join(", ")}`, {
        headers: { Allow: allowed.join(", ") },
      });
    }
    throw new AppError("NOT_FOUND", `No route matches ${path}`);
  },
});

registerEndpoint(notFound);
