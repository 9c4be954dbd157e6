import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createServer, type Server } from "node:net";
import { loadLocalSettings } from "../local/settings";
import { call, tokenFor } from "./http";
import { BOOTSTRAP, root, runtimeEnv, startRuntime, tempDir } from "./runtime";

const portfolio = (code: string) => ({ name: "Durable", code, clientId: "c-durable", baseCurrency: "EUR" });

describe("the local runtime (npm start)", () => {
  const dirs: ReturnType<typeof tempDir>[] = [];
  afterAll(() => dirs.forEach((d) => d.remove()));
  const newDir = () => {
    const dir = tempDir("ids-runtime-");
    dirs.push(dir);
    return dir.path;
  };

  it("keeps data across a clean restart and across a crash, and restarts on the same ports after a crash", async () => {
    const env = await runtimeEnv(newDir());
    const first = await startRuntime(env);
    let token = await tokenFor(BOOTSTRAP.id, BOOTSTRAP.secret, undefined, first.baseUrl);
    const a = await call("POST", "/api/v1/portfolios", { base: first.baseUrl, token, body: portfolio("DURABLE-A") });
    expect(a.status).toBe(201);
    await first.stop();
    expect(first.output()).toContain("stopped");

    const second = await startRuntime(env);
    token = await tokenFor(BOOTSTRAP.id, BOOTSTRAP.secret, undefined, second.baseUrl);
    expect((await call("GET", `/api/v1/portfolios/${a.body.data.id}`, { base: second.baseUrl, token })).status).toBe(
      200,
    );
    const b = await call("POST", "/api/v1/portfolios", { base: second.baseUrl, token, body: portfolio("DURABLE-B") });
    expect(b.status).toBe(201);
    const renamed = await call("PATCH", `/api/v1/portfolios/${a.body.data.id}`, {
      base: second.baseUrl,
      token,
      body: { name: "Renamed before crash" },
    });
    expect(renamed.status).toBe(200);
    await second.kill(); // no snapshot, no clean-up: only the journal has B and the rename

    const third = await startRuntime(env); // same ports: nothing may be left holding them
    expect(third.baseUrl, "the crashed run's ports are free again, not moved").toBe(first.baseUrl);
    expect(third.output()).not.toContain("is taken by another program");
    token = await tokenFor(BOOTSTRAP.id, BOOTSTRAP.secret, undefined, third.baseUrl);
    const list = await call("GET", "/api/v1/portfolios?clientId=c-durable", { base: third.baseUrl, token });
    expect(list.body.data.map((p: { code: string; name: string }) => [p.code, p.name])).toEqual([
      ["DURABLE-A", "Renamed before crash"],
      ["DURABLE-B", "Durable"],
    ]);
    expect(
      (await call("POST", "/api/v1/portfolios", { base: third.baseUrl, token, body: portfolio("DURABLE-B") })).status,
    ).toBe(409);
    // Ctrl-C: a clean stop that removes what it started.
    third.child.kill("SIGINT");
    await new Promise<void>((resolve) => third.child.once("exit", () => resolve()));
    expect(third.child.exitCode).toBe(0);
    expect(third.output()).toContain("stopped");
    expect(existsSync(join(env.LOCAL_DATA_DIR ?? "", "cosmos.pid"))).toBe(false);
    expect(existsSync(join(env.LOCAL_DATA_DIR ?? "", "azurite.pid"))).toBe(false);
  }, 120_000);

  it("limits callers without a valid client per address", async () => {
    const runtime = await startRuntime(await runtimeEnv(newDir(), { RATE_LIMIT_ANONYMOUS_PER_MINUTE: "3" }));
    try {
      // Stay inside one minute window so the count is not reset half-way.
      const secondsLeft = 60 - (Math.floor(Date.now() / 1000) % 60);
      if (secondsLeft < 5) await new Promise((r) => setTimeout(r, secondsLeft * 1000 + 200));
      const statuses: number[] = [];
      let last;
      for (let i = 0; i < 4; i++) {
        last = await call("GET", "/api/v1/portfolios", { base: runtime.baseUrl });
        statuses.push(last.status);
      }
      expect(statuses).toEqual([401, 401, 401, 429]);
      expect(last?.body.error.code).toBe("RATE_LIMIT_EXCEEDED");
      expect(Number(last?.headers.get("retry-after"))).toBeGreaterThan(0);
      const token = await call("POST", "/auth/token", {
        base: runtime.baseUrl,
        body: "grant_type=client_credentials",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
      });
      expect(token.status).toBe(429);
      expect(token.body.error).toBe("temporarily_unavailable");
    } finally {
      await runtime.stop();
    }
  }, 60_000);

  it("starts with every port its settings ask for taken by other programs: each component on a free port instead, and the banner says where", async () => {
    // What `npm start` asks for on this clone (local.settings.json, or the example's README defaults).
    const { values } = loadLocalSettings(root, {});
    const storage = values.STORAGE_CONNECTION_STRING ?? "";
    const wanted = {
      PORT: Number(values.PORT),
      COSMOS_ENDPOINT: Number(new URL(values.COSMOS_ENDPOINT ?? "").port),
      BlobEndpoint: Number(/BlobEndpoint=http:\/\/[^:]+:(\d+)/.exec(storage)?.[1]),
      QueueEndpoint: Number(/QueueEndpoint=http:\/\/[^:]+:(\d+)/.exec(storage)?.[1]),
      SFTP_PORT: Number(values.SFTP_PORT),
      REPLICA_PORT: Number(values.REPLICA_PORT),
    };
    expect(Object.values(wanted).every((port) => port > 0)).toBe(true);
    // Real listeners on each (a port some other program already holds is taken all the same).
    const occupiers: Server[] = [];
    for (const port of Object.values(wanted)) {
      const server = createServer((socket) => socket.end("not the service\n"));
      await new Promise<void>((resolve) => {
        server.once("error", () => resolve());
        server.listen(port, "127.0.0.1", () => resolve());
      });
      occupiers.push(server);
    }
    const env = await runtimeEnv(newDir());
    for (const key of ["PORT", "COSMOS_ENDPOINT", "STORAGE_CONNECTION_STRING", "REPLICA_PORT", "LOCAL_SFTP_PORT"])
      delete env[key];
    const runtime = await startRuntime(env);
    try {
      const out = runtime.output();
      const port = Number(new URL(runtime.baseUrl).port);
      expect(port).not.toBe(wanted.PORT);
      expect(out).toContain(`port ${wanted.PORT} (PORT) is taken by another program`);
      expect(out).toContain(`ready on ${runtime.baseUrl}`);
      expect(out).toContain(`console:  ${runtime.baseUrl}/console`);
      for (const [setting, taken] of Object.entries(wanted))
        expect(out, setting).toMatch(new RegExp(`\\(${taken} is taken by another program; [^)]*${setting}`));
      const where = (label: string): number => Number(new RegExp(`^  ${label}: +\\S+?:(\\d+)`, "m").exec(out)?.[1]);
      expect(where("cosmos")).not.toBe(wanted.COSMOS_ENDPOINT);
      expect(where("blob")).not.toBe(wanted.BlobEndpoint);
      expect(where("queue")).not.toBe(wanted.QueueEndpoint);
      expect(where("sftp")).toBe(runtime.sftpPort);
      expect(runtime.sftpPort).not.toBe(wanted.SFTP_PORT);

      // Every component works where it went: the store, the queues (a valuation), the SFTP login a feed
      // shows, the replica's connection details.
      const token = await tokenFor(BOOTSTRAP.id, BOOTSTRAP.secret, undefined, runtime.baseUrl);
      const created = await call("POST", "/api/v1/portfolios", {
        base: runtime.baseUrl,
        token,
        body: portfolio("PORTS-1"),
      });
      expect(created.status, created.text).toBe(201);
      const feed = await call("POST", "/api/v1/settings/feeds", {
        base: runtime.baseUrl,
        token,
        body: {
          name: "Ports",
          provider: "Test",
          dataType: "securities",
          format: "csv",
          filePattern: "securities-*.csv",
          mapping: { isin: "ISIN", name: "Name", assetClass: "Class", currency: "Currency" },
        },
      });
      expect(feed.status, feed.text).toBe(201);
      expect(feed.body.data.sftp.port, "the port a feed hands to its provider").toBe(runtime.sftpPort);
      const replica = await call("GET", "/api/v1/settings/replica", { base: runtime.baseUrl, token });
      expect(replica.status, replica.text).toBe(200);
      expect(replica.body.data.port).toBe(where("replica"));
      expect(replica.body.data.port).not.toBe(wanted.REPLICA_PORT);
    } finally {
      await runtime.stop();
      await Promise.all(occupiers.map((s) => new Promise((resolve) => s.close(resolve))));
    }
  }, 120_000);

  it("refuses to start with an invalid setting and names it", async () => {
    const env = await runtimeEnv(newDir(), { JWT_SIGNING_KEY: "dG9vLXNob3J0", RATE_LIMIT_PREMIUM_PER_MINUTE: "many" });
    const result = spawnSync(process.execPath, [join(root, "dist", "local", "main.js")], {
      env: { ...process.env, ...env },
      encoding: "utf8",
      timeout: 20_000,
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("JWT_SIGNING_KEY: must be base64 of at least 32 bytes");
    expect(result.stderr).toContain("RATE_LIMIT_PREMIUM_PER_MINUTE");
  });
});
