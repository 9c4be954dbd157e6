import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { gunzipSync } from "node:zlib";
import { generate } from "selfsigned";

/** One telemetry item as Application Insights ingests it (the parts the tests read). */
export interface TelemetryEnvelope {
  /** `Microsoft.ApplicationInsights.Request`, `.RemoteDependency`, `.Message`, `.Event`, ... */
  name: string;
  tags?: Record<string, string>;
  data?: { baseType?: string; baseData?: Record<string, unknown> };
}

export interface IngestionEndpoint {
  url: string;
  /** The endpoint's self-signed certificate, for a client's NODE_EXTRA_CA_CERTS. */
  ca: string;
  /** Every request body, decompressed. */
  bodies: string[];
  /** The Authorization header of every request ("" without one). */
  authorizations: string[];
  /** Every envelope received so far. */
  envelopes(): TelemetryEnvelope[];
  close(): Promise<void>;
}

/**
 * A stand-in for the Application Insights ingestion endpoint on loopback (the exporter only speaks
 * https): it records every envelope it is sent and accepts them all.
 */
export async function ingestionEndpoint(): Promise<IngestionEndpoint> {
  const pems = await generate([{ name: "commonName", value: "localhost" }], { keyType: "ec" });
  const bodies: string[] = [];
  const authorizations: string[] = [];
  const server: Server = createServer({ key: pems.private, cert: pems.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const raw = Buffer.concat(chunks);
      authorizations.push(req.headers.authorization ?? "");
      bodies.push((req.headers["content-encoding"] === "gzip" ? gunzipSync(raw) : raw).toString("utf8"));
      res
        .writeHead(200, { "Content-Type": "application/json" })
        .end(JSON.stringify({ itemsReceived: 1, itemsAccepted: 1, errors: [] }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  return {
    url: `https://localhost:${(server.address() as AddressInfo).port}/`,
    ca: pems.cert,
    bodies,
    authorizations,
    envelopes: () => bodies.flatMap(parseEnvelopes),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A body holds a JSON array of envelopes, or one envelope per line. */
function parseEnvelopes(body: string): TelemetryEnvelope[] {
  try {
    const parsed = JSON.parse(body) as TelemetryEnvelope | TelemetryEnvelope[];
    return Array.isArray(parsed) ? parsed : [parsed];
  } catch {
    return body
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => JSON.parse(line) as TelemetryEnvelope);
  }
}
