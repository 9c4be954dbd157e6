import { randomUUID } from "node:crypto";
import type { HttpRequest } from "@azure/functions";

const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The client's X-Request-Id when it is safe to echo, otherwise a new one. */
export function requestIdOf(request: HttpRequest): string {
  const given = request.headers.get("x-request-id");
  return given !== null && SAFE_REQUEST_ID.test(given) ? given : randomUUID();
}

/**
 * The caller's address. The platform front end (and the local host) appends the connecting address to
 * X-Forwarded-For, so the last entry is the one a client cannot forge.
 */
export function sourceAddress(request: HttpRequest): string {
  const forwarded = request.headers.get("x-forwarded-for");
  const last = forwarded?.split(",").pop()?.trim();
  if (last === undefined || last === "") return "unknown";
  // Strip a port: "1.2.3.4:5678" or "[::1]:5678".
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(last);
  if (bracketed?.[1] !== undefined) return bracketed[1];
  return /^[^:]+:\d+$/.test(last) ? (last.split(":")[0] ?? last) : last;
}
