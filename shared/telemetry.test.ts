import { spawn } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
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
const on = startTelemetry({
  APPLICATIONINSIGHTS_CONNECTION_STRING: process.env.CONNECTION,
  APPLICATIONINSIGHTS_AUTHENTICATION_STRING: process.env.AUTHENTICATION,
});
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

  it("sends with the managed identity's token when the authentication string says Authorization=AAD (local authentication is off in Azure)", async () => {
    // The App Service managed identity endpoint, as Flex Consumption's instances have it (IDENTITY_ENDPOINT / IDENTITY_HEADER).
    const asked: { clientId: string | null; resource: string | null; header: string | undefined }[] = [];
    const identity = createServer((req, res) => {
      const url = new URL(req.url ?? "/", "http://127.0.0.1");
      asked.push({
        clientId: url.searchParams.get("client_id"),
        resource: url.searchParams.get("resource"),
        header: req.headers["x-identity-header"] as string | undefined,
      });
      res.writeHead(200, { "content-type": "application/json" }).end(
        JSON.stringify({
          access_token: "entra-token-for-monitor",
          expires_on: String(Math.floor(Date.now() / 1000) + 3600),
          resource: url.searchParams.get("resource"),
          token_type: "Bearer",
        }),
      );
    });
    await new Promise<void>((resolve) => identity.listen(0, "127.0.0.1", () => resolve()));
    try {
      const child = spawn(process.execPath, ["-e", CHILD], {
        env: {
          ...process.env,
          NODE_EXTRA_CA_CERTS: join(dir, "ca.pem"),
          CONNECTION: `InstrumentationKey=00000000-0000-0000-0000-000000000000;IngestionEndpoint=${endpoint.url}`,
          AUTHENTICATION: "ClientId=11111111-2222-3333-4444-555555555555;Authorization=AAD",
          IDENTITY_ENDPOINT: `http://127.0.0.1:${(identity.address() as AddressInfo).port}/msi/token`,
          IDENTITY_HEADER: "identity-header-secret",
        },
        stdio: "ignore",
      });
      const sentBefore = endpoint.authorizations.length;
      expect(await new Promise<number | null>((resolve) => child.once("exit", resolve))).toBe(0);
      const authorizations = endpoint.authorizations.slice(sentBefore);
      expect(authorizations.length).toBeGreaterThan(0);
      for (const authorization of authorizations) expect(authorization).toBe("Bearer entra-token-for-monitor");
      expect(asked[0]).toMatchObject({
        clientId: "11111111-2222-3333-4444-555555555555",
        resource: expect.stringMatching(/^https:\/\/monitor\.azure\.com/),
        header: "identity-header-secret",
      });
    } finally {
      await new Promise<void>((resolve) => identity.close(() => resolve()));
    }
  }, 30_000);
});
