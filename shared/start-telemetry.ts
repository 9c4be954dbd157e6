/**
 * Imported first by the entry point (functions/index.ts): starting telemetry is its only effect, so
 * that nothing it should instrument has been loaded before it.
 */
import { startTelemetry } from "./telemetry";

startTelemetry({
  APPLICATIONINSIGHTS_CONNECTION_STRING: process.env.APPLICATIONINSIGHTS_CONNECTION_STRING || undefined,
  APPLICATIONINSIGHTS_AUTHENTICATION_STRING: process.env.APPLICATIONINSIGHTS_AUTHENTICATION_STRING || undefined,
});
