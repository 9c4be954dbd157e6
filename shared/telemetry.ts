import type * as ApplicationInsights from "applicationinsights";
import type { Config } from "./config";

let started = false;

/** Switches Application Insights on when its connection string is configured; true when it did. */
export function startTelemetry(config: Pick<Config, "APPLICATIONINSIGHTS_CONNECTION_STRING">): boolean {
  if (started || config.APPLICATIONINSIGHTS_CONNECTION_STRING === undefined) return false;
  started = true;
  // Loaded only when configured: the SDK patches modules at load time.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const appInsights = require("applicationinsights") as typeof ApplicationInsights;
  appInsights.setup(config.APPLICATIONINSIGHTS_CONNECTION_STRING).setAutoCollectConsole(true, true).start();
  return true;
}
