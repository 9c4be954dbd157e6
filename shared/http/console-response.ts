import { AppError } from "../domain/errors";
import type { ConsoleBundle } from "./console-bundle";
import type { EndpointResult } from "./endpoint";

/**
 * What the browser may do with the console: scripts, styles and requests only from this origin (no
 * inline script or style, no eval), no plugin, no framing by any page, no native form submission
 * (every form is sent by script as JSON; a form submitted natively would put what was typed in a URL).
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "Content-Security-Policy": CONSOLE_CSP,
  "X-Content-Type-Options": "nosniff",
  "X-Frame-Options": "DENY",
  "Referrer-Policy": "no-referrer",
  "Cross-Origin-Opener-Policy": "same-origin",
  "Cross-Origin-Resource-Policy": "same-origin",
};

/** The page: never cached without asking (a deployment changes the asset versions it names), 304 when unchanged. */
export function consolePage(bundle: ConsoleBundle, ifNoneMatch: string | null): EndpointResult {
  const etag = `"${bundle.version}"`;
  const headers = { ...SECURITY_HEADERS, "Cache-Control": "no-cache", ETag: etag };
  if (ifNoneMatch !== null && ifNoneMatch.split(",").some((tag) => tag.trim() === etag))
    return { status: 304, headers };
  return { status: 200, bytes: bundle.page, headers: { ...headers, "Content-Type": "text/html; charset=utf-8" } };
}

/**
 * A file under `console/<version>/`: cached for a year, since its URL changes whenever any file does.
 * Only the current version's files exist; anything else is 404 (nothing is looked up on disk).
 */
export function consoleAsset(bundle: ConsoleBundle, path: string): EndpointResult {
  const slash = path.indexOf("/");
  const asset =
    slash > 0 && path.slice(0, slash) === bundle.version ? bundle.assets.get(path.slice(slash + 1)) : undefined;
  if (asset === undefined)
    throw new AppError("NOT_FOUND", "No such console file (the console may have been updated: reload the page)");
  return {
    status: 200,
    bytes: asset.body,
    headers: {
      ...SECURITY_HEADERS,
      "Content-Type": asset.contentType,
      "Cache-Control": "public, max-age=31536000, immutable",
    },
  };
}
