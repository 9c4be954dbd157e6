import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Logger } from "../shared/logging";
import type { LoadedFunction } from "./functions-host";
import { HttpHost } from "./http-host";

const CHUNK = Buffer.alloc(64 * 1024, "x");
const CHUNKS = 64; // 4 MB in all

/** Lets the source go on once the client has read the first bytes: a host that gathered the body first would wait forever. */
let firstBytesRead: () => void = () => undefined;

const streaming = (name: string, source: () => AsyncGenerator<Buffer>): LoadedFunction => ({
  name,
  trigger: { type: "httpTrigger", direction: "in", methods: ["GET", "HEAD"], route: name },
  handler: () => ({
    status: 200,
    headers: { "Content-Type": "application/octet-stream", "Content-Length": String(CHUNK.length * CHUNKS) },
    body: Readable.from(source()),
  }),
});

describe("the local HTTP host: a stream body", () => {
  const lines: string[] = [];
  let host: HttpHost;
  let base = "";
  beforeAll(async () => {
    host = new HttpHost(
      [
        streaming("file", async function* () {
          yield CHUNK;
          await new Promise<void>((resolve) => (firstBytesRead = resolve));
          for (let i = 1; i < CHUNKS; i++) yield CHUNK;
        }),
        streaming("broken", async function* () {
          yield CHUNK;
          throw new Error("the store went away");
        }),
      ],
      { port: 0, host: "127.0.0.1", routePrefix: "", log: new Logger("info", (_level, line) => void lines.push(line)) },
    );
    base = `http://127.0.0.1:${await host.start()}`;
  });
  afterAll(() => host.stop());

  it("is sent as it is read: the client has the first bytes before the source has produced the rest, then all of them", async () => {
    const response = await fetch(`${base}/file`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-length")).toBe(String(CHUNK.length * CHUNKS));
    let received = 0;
    for await (const chunk of response.body!) {
      if (received === 0) firstBytesRead();
      received += (chunk as Uint8Array).length;
    }
    expect(received).toBe(CHUNK.length * CHUNKS);
  });

  it("cut short by a failing source: the connection is aborted (never a short body taken for the whole), and the host logs why", async () => {
    const response = await fetch(`${base}/broken`);
    expect(response.status).toBe(200);
    await expect(response.arrayBuffer()).rejects.toThrow();
    expect(
      lines.some((l) => l.includes("a streamed response failed midway") && l.includes("the store went away")),
    ).toBe(true);
  });

  it("answers HEAD with the headers only", async () => {
    const response = await fetch(`${base}/file`, { method: "HEAD" });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-length")).toBe(String(CHUNK.length * CHUNKS));
    expect(await response.text()).toBe("");
  });
});
