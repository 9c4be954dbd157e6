/**
 * Imported first by the local runtime (main.ts), before any SDK or `http` is loaded, as the app's entry
 * point imports shared/start-telemetry first in Azure: with its connection string set (environment or
 * local settings), Application Insights instruments what loads after it. The stand-in for
 * `@azure/functions-core` is resolvable before, so the distro registers its `preInvocation` hook with
 * the local host as it does with the Functions worker.
 */
import { startTelemetry } from "../shared/telemetry";
import { installCore } from "./core-module";
import { projectRoot } from "./launch";
import { loadLocalSettings } from "./settings";

installCore();
startTelemetry({
  APPLICATIONINSIGHTS_CONNECTION_STRING:
    loadLocalSettings(projectRoot).values.APPLICATIONINSIGHTS_CONNECTION_STRING || undefined,
});
