import type { Config } from "./config";

let started = false;

/** Switches Application Insights on when its connection string is configured. */
export function startTelemetry(config: Config): void {
  if (started || config.APPLICATIONINSIGHTS_CONNECTION_STRING === undefined) return;
  started = true;
  // Loaded only when configured: the SDK patches modules at load time.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const appInsights = require("applicationinsights") as typeof import("applicationinsights");
  appInsights.setup(config.APPLICATIONINSIGHTS_CONNECTION_STRING).setAutoCollectConsole(true, true).start();
}
