// @ts-check
// The settings API, called like any client: relative URLs (the page is served by the service itself),
// the bearer token in a header, errors in the service's shape turned into ApiError.
import { expire, sessionState } from "./session.js";

/** @typedef {{ field: string, message: string }} ErrorDetail */
/** @typedef {{ page: number, pageSize: number, totalItems: number, totalPages: number }} Pagination */

/** What went wrong with a call: the service's answer (4xx, 5xx), or no answer at all. */
export class ApiError extends Error {
  /**
   * @param {"client" | "server" | "network" | "auth"} kind
   * @param {string} message
   * @param {{ status?: number, code?: string, details?: ErrorDetail[], requestId?: string }} [info]
   */
  constructor(kind, message, info = {}) {
    super(message);
    this.kind = kind;
    this.status = info.status ?? 0;
    this.code = info.code ?? "";
    /** @type {ErrorDetail[]} */
    this.details = info.details ?? [];
    this.requestId = info.requestId ?? "";
  }
}

/**
 * @param {string} path e.g. `api/v1/settings/webhooks`
 * @param {Record<string, string | number | undefined>} [query]
 */
export function apiUrl(path, query = {}) {
  const url = new URL(path, document.baseURI);
  for (const [key, value] of Object.entries(query))
    if (value !== undefined && value !== "") url.searchParams.set(key, String(value));
  return url;
}

/**
 * One API call. A JSON answer's body is returned as it is (`{ data, pagination }`); 204 gives undefined.
 * @param {"GET" | "POST" | "PATCH" | "DELETE"} method
 * @param {string} path
 * @param {{ query?: Record<string, string | number | undefined>, json?: unknown, file?: Blob, blob?: boolean }} [options]
 * `blob`: a success answers the body's bytes as a Blob (a file to download), not JSON.
 * @returns {Promise<any>}
 */
export async function api(method, path, options = {}) {
  const session = sessionState().session;
  if (session === undefined) throw new ApiError("auth", "Sign in to continue.");
  /** @type {Record<string, string>} */
  const headers = { Authorization: `Bearer ${session.accessToken}`, Accept: "application/json" };
  /** @type {BodyInit | undefined} */
  let body;
  if (options.json !== undefined) {
    headers["Content-Type"] = "application/json";
    body = JSON.stringify(options.json);
  } else if (options.file !== undefined) {
    headers["Content-Type"] = "application/octet-stream";
    body = options.file;
  }
  /** @type {Response} */
  let response;
  try {
    response = await fetch(apiUrl(path, options.query), { method, headers, body, cache: "no-store" });
  } catch {
    throw new ApiError(
      "network",
      "The service could not be reached. Check your connection; nothing you typed is lost.",
    );
  }
  if (response.status === 204) return undefined;
  if (response.ok && options.blob === true) return response.blob();
  const payload = await response.json().catch(() => undefined);
  if (response.ok) return payload;
  const error = payload?.error ?? {};
  const info = { status: response.status, code: error.code, details: error.details, requestId: error.requestId };
  if (response.status === 401) {
    expire();
    throw new ApiError("auth", "Your session has ended. Sign in again to continue.", info);
  }
  if (response.status >= 500) {
    const message = `The service failed (${response.status}${error.code ? ` ${error.code}` : ""}). Nothing you typed is lost; try again.`;
    throw new ApiError("server", error.requestId ? `${message} Request id: ${error.requestId}.` : message, info);
  }
  if (response.status === 429) throw new ApiError("client", "Too many requests. Wait a moment, then try again.", info);
  throw new ApiError("client", error.message ?? `The request was refused (${response.status}).`, info);
}
