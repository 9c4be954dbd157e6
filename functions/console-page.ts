import { consoleBundle } from "../shared/http/console-bundle";
import { consolePage } from "../shared/http/console-response";
import { endpoint } from "../shared/http/endpoint";
import { registerEndpoint } from "../shared/http/registry";

/** The System Settings console (no token to load it: it signs in and calls the API like any client). */
export const consolePageEndpoint = endpoint({
  name: "console-page",
  method: "GET",
  route: "console",
  summary: "The System Settings console (a web page)",
  tag: "Console",
  scope: null,
  hidden: true,
  rateLimited: false,
  responses: [{ status: 200, description: "The console's page" }],
  async handle({ request }) {
    // `console/` would break the page's relative URLs (its files, the API): send the browser to `console`.
    if (new URL(request.url).pathname.endsWith("/")) return { status: 308, headers: { Location: "../console" } };
    return consolePage(consoleBundle(), request.headers.get("if-none-match"));
  },
});

registerEndpoint(consolePageEndpoint);
