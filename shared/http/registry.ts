import { app } from "@azure/functions";
import { allHttpMethods, type AnyEndpoint } from "./endpoint";
import { httpHandler, type ErrorShaper } from "./pipeline";
import { compileRoute, type RouteTemplate } from "./route-template";

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

const templates = new Map<string, RouteTemplate>();

/** The methods registered for a path (as sent), for 405's Allow header. */
export function allowedMethods(path: string): string[] {
  const methods = endpoints
    .filter((e) => {
      if (e.method === "ANY") return false;
      const template = templates.get(e.route) ?? compileRoute(e.route);
      templates.set(e.route, template);
      return template.match(path) !== undefined;
    })
    .map((e) => e.method);
  // Two routes can match one path (`console` and `console/{*path}` both match /console).
  return [...new Set(methods)];
}
