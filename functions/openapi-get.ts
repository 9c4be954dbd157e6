import { buildOpenApiDocument } from "../shared/http/openapi";
import { endpoint } from "../shared/http/endpoint";
import { registeredEndpoints, registerEndpoint } from "../shared/http/registry";

let document: object | undefined;

export const openapiGet = endpoint({
  name: "openapi-get",
  method: "GET",
  route: "api/v1/openapi.json",
  summary: "This API's OpenAPI 3.1 document (no token needed)",
  tag: "Meta",
  scope: null,
  responses: [{ status: 200, description: "The OpenAPI document" }],
  async handle() {
    // Built on first use, when every function file has registered.
    document ??= buildOpenApiDocument(registeredEndpoints());
    return { status: 200, body: document, headers: { "Cache-Control": "public, max-age=300" } };
  },
});

registerEndpoint(openapiGet);
