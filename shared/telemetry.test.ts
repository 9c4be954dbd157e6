import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { projectRoot } from "../local/launch";
import { ingestionEndpoint, type IngestionEndpoint } from "../test/ingestion-endpoint";
import { startTelemetry } from "./telemetry";

/** A process that starts telemetry the way the function app does, logs a line, and flushes. */
const CHILD = `
const { startTelemetry } = require(${JSON.stringify(join(projectRoot, "dist", "shared", "telemetry.js"))});
const on = startTelemetry({ APPLICATIONINSIGHTS_CONNECTION_STRING: process.env.CONNECTION });
console.log("telemetry-probe-line");
const ai = require("applicationinsights");
ai.defaultClient.trackEvent({ name: "telemetry-probe-event" });
setTimeout(async () => { await ai.defaultClient.flush(); setTimeout(() => process.exit(on ? 0 : 3), 1500); }, 500);
`;

describe("startTelemetry", () => {
  let endpoint: IngestionEndpoint;
  let dir: string;
  beforeAll(async () => {
    endpoint = await ingestionEndpoint();
    dir = mkdtempSync(join(tmpdir(), "ids-telemetry-"));
    writeFileSync(join(dir, "ca.pem"), endpoint.ca);
  });
  afterAll(async () => {
    await endpoint.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("stays off without a connection string", () => {
    expect(startTelemetry({ APPLICATIONINSIGHTS_CONNECTION_STRING: undefined })).toBe(false);
  });

  it("sends events and console lines to the configured ingestion endpoint", async () => {
    const child = spawn(process.execPath, ["-e", CHILD], {
      // The child trusts the test endpoint's certificate; nothing turns TLS checks off.
      env: {
        ...process.env,
        NODE_EXTRA_CA_CERTS: join(dir, "ca.pem"),
        CONNECTION: `InstrumentationKey=00000000-0000-0000-0000-000000000000;IngestionEndpoint=${endpoint.url}`,
      },
      stdio: "ignore",
    });
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    expect(code).toBe(0);
    const sent = endpoint.bodies.join("\n");
    expect(sent).toContain("telemetry-probe-event");
    expect(sent).toContain("telemetry-probe-line");
  }, 20_000);
});
