import { describe, expect, it } from "vitest";
import { startTelemetry } from "./telemetry";

describe("startTelemetry", () => {
  it("stays off without a connection string, and starts Application Insights with one", async () => {
    expect(startTelemetry({ APPLICATIONINSIGHTS_CONNECTION_STRING: undefined })).toBe(false);
    // A loopback ingestion endpoint: nothing leaves the machine.
    const started = startTelemetry({ APPLICATIONINSIGHTS_CONNECTION_STRING: "InstrumentationKey=00000000-0000-0000-0000-000000000000;IngestionEndpoint=http://127.0.0.1:9/" });
    expect(started).toBe(true);
    const appInsights = await import("applicationinsights");
    expect(appInsights.defaultClient).toBeDefined();
    expect(startTelemetry({ APPLICATIONINSIGHTS_CONNECTION_STRING: "InstrumentationKey=x" })).toBe(false);
    appInsights.dispose();
  });
});
