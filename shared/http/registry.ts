import { app } from "@azure/functions";
import { getConfig } from "../config";
import { startTelemetry } from "../telemetry";
import { allHttpMethods, type AnyEndpoint } from "./endpoint";
import { httpHandler, type ErrorShaper } from "./pipeline";

// Every function file registers through here first, so telemetry starts before any handler runs.
startTelemetry(getConfig());

const endpoints: AnyEndpoint[] = [];

/** Every endpoint registered in this process (the OpenAPI document and the 405 check read it). */
export const registeredEndpoints = (): readonly AnyEndpoint[] => endpoints;

/** Registers an endpoint as an anonymous-level HTTP function behind the shared pipeline. */
export function registerEndpoint(endpoint: AnyEndpoint, shapeError?: ErrorShaper): void {
  endpoints.push(endpoint);
  app.http(endpoint.name, {
    methods: endpoint.method === "ANY" ? [...allHttpMethods] : [endpoint.method],
    route: endpoint.route,
    authLevel: "anonymous",
    handler: httpHandler(endpoint, shapeError),
  });
}

/** Splits a route template into segments; `{name}` segments match any one segment. */
export function routeMatches(template: string, path: string): boolean {
  const want = template.split("/");
  const got = path.replace(/^\/+|\/+$/g, "").split("/");
  if (want.length !== got.length) return false;
  return want.every((segment, i) => (segment.startsWith("{") && segment.endsWith("}") ? got[i] !== "" : segment === got[i]));
}

/** The methods registered for a path, for 405's Allow header. */
export function allowedMethods(path: string): string[] {
  return endpoints.filter((e) => e.method !== "ANY" && routeMatches(e.route, path)).map((e) => e.method);
}
