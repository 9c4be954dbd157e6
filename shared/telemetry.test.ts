import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { generate } from "selfsigned";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { projectRoot } from "../local/launch";
import { startTelemetry } from "./telemetry";

/**
 * A stand-in for the Application Insights ingestion endpoint on loopback (the exporter only speaks
 * https): it records every envelope it is sent.
 */
async function ingestionEndpoint(): Promise<{ url: string; ca: string; bodies: string[]; close(): Promise<void> }> {
  const pems = await generate([{ name: "commonName", value: "localhost" }], { keyType: "ec" });
  const bodies: string[] = [];
  const server: Server = createServer({ key: pems.private, cert: pems.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const raw = Buffer.concat(chunks);
      bodies.push((req.headers["content-encoding"] === "gzip" ? gunzipSync(raw) : raw).toString("utf8"));
      res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify({ itemsReceived: 1, itemsAccepted: 1, errors: [] }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  return {
    url: `https://localhost:${(server.address() as AddressInfo).port}/`,
    ca: pems.cert,
    bodies,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

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
  let endpoint: Awaited<ReturnType<typeof ingestionEndpoint>>;
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
      env: { ...process.env, NODE_EXTRA_CA_CERTS: join(dir, "ca.pem"), CONNECTION: `InstrumentationKey=00000000-0000-0000-0000-000000000000;IngestionEndpoint=${endpoint.url}` },
      stdio: "ignore",
    });
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    expect(code).toBe(0);
    const sent = endpoint.bodies.join("\n");
    expect(sent).toContain("telemetry-probe-event");
    expect(sent).toContain("telemetry-probe-line");
  }, 20_000);
});
