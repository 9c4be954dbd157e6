import { z } from "zod";
import { consoleBundle } from "../shared/http/console-bundle";
import { consoleAsset } from "../shared/http/console-response";
import { endpoint } from "../shared/http/endpoint";
import { registerEndpoint } from "../shared/http/registry";

/** The console's scripts, styles and icon, under a versioned path (`console/<version>/main.js`). */
export const consoleAssets = endpoint({
  name: "console-assets",
  method: "GET",
  route: "console/{*path}",
  summary: "The System Settings console's static files",
  tag: "Console",
  scope: null,
  hidden: true,
  rateLimited: false,
  params: z.object({ path: z.string().max(300).default("") }),
  responses: [{ status: 200, description: "A static file" }],
  async handle({ params }) {
    // `console/`, where a host routes it here: the page's address is `console` (its URLs are relative to it).
    if (params.path === "") return { status: 308, headers: { Location: "../console" } };
    return consoleAsset(consoleBundle(), params.path);
  },
});

registerEndpoint(consoleAssets);
