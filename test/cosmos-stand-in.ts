import { CosmosClient, type Container } from "@azure/cosmos";
import { createHttpServer } from "@vercel/cosmosdb-server";
import type { AddressInfo } from "node:net";
import { CosmosDatabase, ensureDatabase } from "../shared/adapters/cosmos/cosmos-client";
import { startDurableStandIn, type DurableStandIn } from "../local/cosmos/durable-stand-in";

/** A Cosmos stand-in in this process on a free loopback port, with the deployment's containers. */
export async function startCosmos(): Promise<{
  db: CosmosDatabase;
  client: CosmosClient;
  endpoint: string;
  stop(): Promise<void>;
}> {
  const server = createHttpServer({ keepAlive: true });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client = new CosmosClient({
    endpoint,
    key: "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==",
    connectionPolicy: { enableEndpointDiscovery: false },
  });
  await ensureDatabase(client, "unit");
  return {
    db: new CosmosDatabase(client, "unit"),
    client,
    endpoint,
    stop: async () => {
      client.dispose();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

export interface SeenRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** Decides whether the proxy answers a request itself: a status and optional retry-after, or undefined to forward it. */
export type Fault = (request: SeenRequest) => { status: number; retryAfterMs?: number } | undefined;

/** Rewrites a forwarded answer's body (e.g. one operation of a batch answered 429), or undefined to pass it on. */
export type Rewrite = (
  request: SeenRequest,
  status: number,
  body: string,
) => { status: number; body: string } | undefined;

/**
 * An HTTP proxy in front of the stand-in that can answer selected requests with a failure (429 with
 * x-ms-retry-after-ms, 503, ...), as real Cosmos DB does when throttling. It records what it forwards.
 */
export async function startFaultProxy(target: string): Promise<{
  endpoint: string;
  seen: SeenRequest[];
  fault(f: Fault | undefined): void;
  rewrite(r: Rewrite | undefined): void;
  stop(): Promise<void>;
}> {
  const { createServer, request: forward } = await import("node:http");
  const seen: SeenRequest[] = [];
  let current: Fault | undefined;
  let rewriting: Rewrite | undefined;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      const info: SeenRequest = {
        method: req.method ?? "GET",
        path: req.url ?? "/",
        headers: req.headers,
        body: body.toString("utf8"),
      };
      seen.push(info);
      const failure = current?.(info);
      if (failure !== undefined) {
        const headers: Record<string, string> = {
          "content-type": "application/json",
          "x-ms-activity-id": "00000000-0000-0000-0000-000000000000",
        };
        if (failure.retryAfterMs !== undefined) headers["x-ms-retry-after-ms"] = String(failure.retryAfterMs);
        if (failure.status === 429) headers["x-ms-substatus"] = "3200";
        res.writeHead(failure.status, headers);
        res.end(
          JSON.stringify({
            code: failure.status === 429 ? "TooManyRequests" : "ServiceUnavailable",
            message: "injected by the fault proxy",
          }),
        );
        return;
      }
      const url = new URL(target);
      const out = forward(
        {
          host: url.hostname,
          port: url.port,
          method: req.method,
          path: req.url,
          headers: { ...req.headers, host: url.host },
        },
        (answer) => {
          const parts: Buffer[] = [];
          answer.on("data", (c: Buffer) => parts.push(c));
          answer.on("end", () => {
            const text = Buffer.concat(parts).toString("utf8");
            const changed = rewriting?.(info, answer.statusCode ?? 502, text);
            const headers = { ...answer.headers };
            delete headers["content-length"];
            delete headers["transfer-encoding"];
            res.writeHead(changed?.status ?? answer.statusCode ?? 502, headers);
            res.end(changed?.body ?? text);
          });
        },
      );
      out.on("error", (error) => res.destroy(error));
      out.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    fault: (f) => (current = f),
    rewrite: (r) => (rewriting = r),
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** A client of `endpoint` (the stand-in or a proxy in front of it) that gives up after `retries` SDK retries. */
export function standInClient(endpoint: string, retries = 1): CosmosClient {
  return new CosmosClient({
    endpoint,
    key: "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==",
    connectionPolicy: {
      enableEndpointDiscovery: false,
      retryOptions: { maxRetryAttemptCount: retries, fixedRetryIntervalInMilliseconds: 10, maxWaitTimeInSeconds: 5 },
    },
  });
}

/**
 * The durable stand-in (local/cosmos, as the local runtime runs it) over `dir` on a free loopback port,
 * with an SDK client and the container `unit/<container>` (partition /pk). `close` disposes the client
 * and closes the stand-in (with its final snapshot).
 */
export async function openDurableStandIn(
  dir: string,
  container = "things",
): Promise<{ standIn: DurableStandIn; client: CosmosClient; things: Container; close: () => Promise<void> }> {
  const standIn = await startDurableStandIn({ port: 0, dir });
  const client = new CosmosClient({
    endpoint: `http://127.0.0.1:${standIn.port}`,
    key: "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==",
    connectionPolicy: { enableEndpointDiscovery: false },
  });
  const { database } = await client.databases.createIfNotExists({ id: "unit" });
  const { container: things } = await database.containers.createIfNotExists({
    id: container,
    partitionKey: { paths: ["/pk"] },
  });
  return {
    standIn,
    client,
    things,
    close: async () => {
      client.dispose();
      await standIn.close();
    },
  };
}
