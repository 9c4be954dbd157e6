import { readFileSync } from "node:fs";
import { join } from "node:path";
import { BlobServiceClient } from "@azure/storage-blob";
import { Client, type SFTPWrapper } from "ssh2";
import SftpClient from "ssh2-sftp-client";
import { afterAll, assert, beforeAll, describe, expect, it, vi } from "vitest";
import { custodianPositionsFeed } from "./feed-fixtures";
import { adminToken, call } from "./http";
import { runtimeEnv, startRuntime, tempDir, type Runtime } from "./runtime";

const FEEDS = "/api/v1/settings/feeds";
const fixture = readFileSync(join(__dirname, "fixtures/feeds/csv/custodian-positions-cp1252.csv"));

interface Login {
  id: string;
  host: string;
  port: number;
  username: string;
  password: string;
}

/**
 * The SFTP drop against hostile clients: file names made to slow the pattern matching or to hide a
 * line break, uploads opened by the hundred, passwords guessed by the hundred. Its own runtime, with
 * small caps and a short backoff so the limits show quickly.
 */
describe("SFTP drop: hostile clients", () => {
  let runtime: Runtime;
  let data: ReturnType<typeof tempDir>;
  let token: string;
  const clients: SftpClient[] = [];
  const connections: Client[] = [];

  beforeAll(async () => {
    data = tempDir("ids-sftp-hostile-");
    runtime = await startRuntime(
      await runtimeEnv(data.path, {
        SFTP_MAX_UPLOADS_PER_LOGIN: "2",
        SFTP_MAX_UPLOADS: "3",
        SFTP_MAX_AUTH_TRIES: "4",
        SFTP_AUTH_BACKOFF_SECONDS: "0.2",
        SFTP_AUTH_BACKOFF_MAX_SECONDS: "1.6",
      }),
    );
    token = await adminToken(runtime.baseUrl);
  }, 60_000);
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.end().catch(() => undefined)));
    for (const c of connections) c.destroy();
    await runtime?.stop();
    data?.remove();
  }, 60_000);

  const blobs = () => BlobServiceClient.fromConnectionString(runtime.env.STORAGE_CONNECTION_STRING ?? "");
  const inbound = () => blobs().getContainerClient("inbound");
  const newFeed = async (fields: Record<string, unknown> = {}): Promise<Login> => {
    const reply = await call("POST", FEEDS, {
      token,
      base: runtime.baseUrl,
      body: { ...custodianPositionsFeed, status: "paused", ...fields },
    });
    expect(reply.status, reply.text).toBe(201);
    const { id, sftp } = reply.body.data;
    return { id, host: sftp.host, port: runtime.sftpPort, username: sftp.username, password: sftp.password };
  };
  const connect = async (login: Login): Promise<SftpClient> => {
    const client = new SftpClient();
    clients.push(client);
    await client.connect({
      host: login.host,
      port: login.port,
      username: login.username,
      password: login.password,
      retries: 0,
      readyTimeout: 20_000,
    });
    return client;
  };
  const raw = (login: Login): Promise<{ conn: Client; sftp: SFTPWrapper }> =>
    new Promise((resolve, reject) => {
      const conn = new Client();
      connections.push(conn);
      conn.on("error", reject);
      conn.on("ready", () => conn.sftp((error, sftp) => (error ? reject(error) : resolve({ conn, sftp }))));
      conn.connect({
        host: login.host,
        port: login.port,
        username: login.username,
        password: login.password,
        readyTimeout: 20_000,
      });
    });
  const open = (sftp: SFTPWrapper, name: string): Promise<Buffer> =>
    new Promise((resolve, reject) => sftp.open(name, "w", (e, h) => (e ? reject(e) : resolve(h))));
  const close = (sftp: SFTPWrapper, handle: Buffer): Promise<void> =>
    new Promise((resolve, reject) => sftp.close(handle, (e) => (e ? reject(e) : resolve())));
  const write = (sftp: SFTPWrapper, handle: Buffer, data: Buffer, position: number): Promise<void> =>
    new Promise((resolve, reject) =>
      sftp.write(handle, data, 0, data.length, position, (e) => (e ? reject(e) : resolve())),
    );
  const inboxOf = async (feedId: string): Promise<string[]> => {
    const names: string[] = [];
    for await (const blob of inbound().listBlobsFlat({ prefix: `${feedId}/` }))
      names.push(blob.name.slice(feedId.length + 1));
    return names;
  };
  /** The runtime's JSON log lines with this message. */
  const logged = (message: string): Record<string, unknown>[] =>
    runtime
      .output()
      .split("\n")
      .filter((l) => l.startsWith("{") && l.includes(message))
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.message === message);

  it("a name built to make the pattern matching backtrack is refused at once, the service answering meanwhile", async () => {
    const login = await newFeed({ filePattern: "*-*-*-*-*.csv" });
    const { sftp } = await raw(login);
    // 255 dashes: the longest name, and no `.csv`. Matched by backtracking this took 27 s, the
    // service frozen; an unrelated request sent with it must be answered as usual.
    const [opened, answered] = await Promise.all([
      open(sftp, "-".repeat(255)).then(
        () => undefined,
        (e: Error) => e,
      ),
      call("GET", "/api/v1/openapi.json", { base: runtime.baseUrl }),
    ]);
    expect(opened?.message).toMatch(/does not match the feed's file pattern/);
    expect(answered.status).toBe(200);
    const sftpClient = await connect(login);
    const matching = `${"-".repeat(240)}.csv`;
    await sftpClient.put(fixture, matching);
    expect(await inboxOf(login.id)).toEqual([matching]);
  });

  it("a name with a line or paragraph separator (or another control character) is refused at upload, never left unseen in the inbox", async () => {
    const login = await newFeed();
    const sftp = await connect(login);
    for (const name of [
      "custodian-positions-a\u2028b.csv",
      "custodian-positions-a\u2029b.csv",
      "custodian-positions-a\u0085b.csv",
      "custodian-positions-a\u001bb.csv",
    ]) {
      await expect(sftp.put(fixture, name), JSON.stringify(name)).rejects.toThrow(
        /denied: a file name must not hold control characters or line or paragraph separators/,
      );
    }
    expect(await sftp.list("/")).toEqual([]);
    expect(await inboxOf(login.id)).toEqual([]);
  });

  it("a name with a noncharacter (U+FFFE and the rest) or an unpaired surrogate is refused at open, as control characters are", async () => {
    const login = await newFeed();
    const sftp = await connect(login);
    const names: [string, string][] = [
      ["custodian-positions-a\uFFFEb.csv", "U+FFFE"],
      ["custodian-positions-a\uFFFFb.csv", "U+FFFF"],
      ["custodian-positions-a\uFDD0b.csv", "U+FDD0"],
      ["custodian-positions-a\u{10FFFE}b.csv", "U+10FFFE"],
      // Not UTF-8 at all: the client sends what its encoder makes of it, which the server reads as U+FFFD.
      ["custodian-positions-a\uD800b.csv", "U+FFFD"],
    ];
    for (const [name, problem] of names) {
      await expect(sftp.put(fixture, name), JSON.stringify(name)).rejects.toThrow(
        new RegExp(
          `denied: a file name must be Unicode text without noncharacters .*; this one holds [^;]*${problem.replace("+", "\\+")}`,
        ),
      );
    }
    expect(await sftp.list("/")).toEqual([]);
    expect(await inboxOf(login.id)).toEqual([]);
  });

  it("a blob named with U+FFFE put straight into inbound stops no other feed's files: it is refused with a failed job and quarantined", async () => {
    const [bad, good] = [await newFeed({ status: "testing" }), await newFeed({ status: "testing" })];
    const badName = "custodian-positions-a\uFFFEb.csv";
    // Storage takes the name (the emulator does; nothing in the service writes it).
    await inbound().getBlockBlobClient(`${bad.id}/${badName}`).upload(fixture, fixture.length);
    const goodSftp = await connect(good);
    await goodSftp.put(fixture, "custodian-positions-after.csv");
    const jobOf = async (feedId: string): Promise<Record<string, unknown>> =>
      vi.waitFor(
        async () => {
          const jobs = (await call("GET", `/api/v1/jobs?feedId=${feedId}`, { token, base: runtime.baseUrl })).body
            .data as Record<string, unknown>[];
          const done = jobs.find((j) => j.status !== "running");
          assert.isDefined(done, `the job of feed ${feedId}`);
          return done;
        },
        { timeout: 30_000, interval: 100 },
      );
    expect(await jobOf(good.id)).toMatchObject({ fileName: "custodian-positions-after.csv", status: "completed" });
    const refused = await jobOf(bad.id);
    expect(refused).toMatchObject({
      fileName: "custodian-positions-a\\u{fffe}b.csv",
      status: "failed",
      counts: { received: 0, accepted: 0, rejected: 0 },
      errors: [
        { field: "file", message: expect.stringMatching(/the file name holds the Unicode noncharacter U\+FFFE/) },
      ],
    });
    // Out of the inbox, so the feed's own listing (SFTP, a resume) works again.
    await expect.poll(() => inboxOf(bad.id), { timeout: 10_000 }).toEqual([]);
    expect(await blobs().getContainerClient("quarantine").getBlobClient(`${bad.id}/${badName}`).exists()).toBe(true);
    expect(await (await connect(bad)).list("/")).toEqual([]);
  });

  it("a file with U+2028 in its name that reaches the inbox another way (a blob upload) is ingested, not left there", async () => {
    const login = await newFeed({ status: "testing" });
    const name = "custodian-positions-a\u2028b.csv";
    await inbound().getBlockBlobClient(`${login.id}/${name}`).upload(fixture, fixture.length);
    const job = await vi.waitFor(
      async () => {
        const jobs = (await call("GET", `/api/v1/jobs?feedId=${login.id}`, { token, base: runtime.baseUrl })).body
          .data as { fileName: string; status: string }[];
        const done = jobs.find((j) => j.fileName === name && j.status !== "running");
        assert.isDefined(done, "the job of the file");
        return done;
      },
      { timeout: 30_000, interval: 100 },
    );
    expect(job.status).toBe("completed");
    // The file leaves the inbox (for archive) once its job is written.
    await expect.poll(() => inboxOf(login.id), { timeout: 10_000 }).toEqual([]);
  });

  it("open uploads are capped per login and in all; a closed or dropped upload frees its place", async () => {
    const [a, b, c] = [await newFeed(), await newFeed(), await newFeed()];
    const sessionA = await raw(a);
    // As the probe did: a hundred uploads opened at once. Two are allowed this login (SFTP_MAX_UPLOADS_PER_LOGIN).
    const outcomes = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        open(sessionA.sftp, `custodian-positions-${i}.csv`).then(
          (h) => h,
          (e: Error) => e,
        ),
      ),
    );
    const handles = outcomes.filter((o): o is Buffer => Buffer.isBuffer(o));
    const refusals = outcomes.filter((o): o is Error => o instanceof Error);
    expect(handles).toHaveLength(2);
    expect(refusals).toHaveLength(98);
    expect(new Set(refusals.map((e) => e.message))).toEqual(
      new Set(["this login has 2 uploads open (at most 2): close one first"]),
    );
    // Each holds data short of a block (kept in memory until the block fills or the upload closes).
    for (const h of handles) await write(sessionA.sftp, h, Buffer.alloc(3 * 1024 * 1024, 65), 0);

    // Three in all (SFTP_MAX_UPLOADS): another login gets the third, not a fourth.
    const sessionB = await raw(b);
    const b1 = await open(sessionB.sftp, "custodian-positions-b1.csv");
    await expect(open(sessionB.sftp, "custodian-positions-b2.csv")).rejects.toThrow(
      "the server has 3 uploads open (at most 3): try again shortly",
    );

    // Closing one commits it and frees its place.
    await close(sessionA.sftp, handles[0] as Buffer);
    const b2 = await open(sessionB.sftp, "custodian-positions-b2.csv");
    // Dropping a connection gives up its open upload (nothing stored) and frees its place.
    const sessionC = await raw(c);
    await expect(open(sessionC.sftp, "custodian-positions-c1.csv")).rejects.toThrow(/at most 3/);
    sessionA.conn.destroy();
    const c1 = await vi.waitFor(() => open(sessionC.sftp, "custodian-positions-c1.csv"), {
      timeout: 10_000,
      interval: 100,
    }); // a place freed by the dropped connection
    for (const [session, h] of [
      [sessionB, b1],
      [sessionB, b2],
      [sessionC, c1],
    ] as const)
      await close(session.sftp, h);
    expect(await inboxOf(a.id)).toEqual([`custodian-positions-${outcomes.indexOf(handles[0] as Buffer)}.csv`]);
    expect(
      (
        await inbound()
          .getBlobClient(`${a.id}/custodian-positions-${outcomes.indexOf(handles[0] as Buffer)}.csv`)
          .getProperties()
      ).contentLength,
    ).toBe(3 * 1024 * 1024);
    expect(logged("sftp upload refused: too many open uploads").length).toBeGreaterThanOrEqual(100);
  });

  /** One connection making password attempts until it is let in, refused for good, or closed. */
  const tryPasswords = (
    login: Login,
    passwords: string[],
  ): Promise<{ tried: number; outcome: "ready" | "closed" | "refused"; ms: number }> =>
    new Promise((resolve) => {
      const started = Date.now();
      const conn = new Client();
      connections.push(conn);
      let tried = 0;
      let done = false;
      const finish = (outcome: "ready" | "closed" | "refused"): void => {
        if (done) return;
        done = true;
        conn.end();
        resolve({ tried, outcome, ms: Date.now() - started });
      };
      conn.on("ready", () => finish("ready"));
      conn.on("error", (e) =>
        finish(/All configured authentication methods failed/.test(e.message) ? "refused" : "closed"),
      );
      conn.on("close", () => finish("closed"));
      conn.connect({
        host: login.host,
        port: login.port,
        username: login.username,
        readyTimeout: 60_000,
        authHandler: (_methodsLeft, _partial, next) => {
          const password = passwords[tried];
          if (password === undefined) return next(false as never);
          tried++;
          next({ type: "password", username: login.username, password });
        },
      });
    });

  it("failed passwords back off per address, whatever login name it tries; excess attempts are refused unchecked, and each failure is logged without the password", async () => {
    const victim = await newFeed();
    const other = await newFeed();
    const guesses = Array.from({ length: 6 }, (_, i) => `guess-${i}-Xq7w`);
    // One wrong password per connection, one connection after another: each waits for the last
    // failure's delay (0.2 s, doubling, at most 1.6 s) before its password is even checked.
    const times: number[] = [];
    for (const guess of guesses) {
      const attempt = await tryPasswords(victim, [guess]);
      expect(attempt.outcome).toBe("refused");
      times.push(attempt.ms);
    }
    expect(times.slice(1).reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(
      0.9 * (0.2 + 0.4 + 0.8 + 1.6 + 1.6) * 1000,
    );
    // The right password still works, once its turn comes: a backoff, not a lock-out.
    const right = await tryPasswords(victim, [victim.password]);
    expect(right.outcome).toBe("ready");
    expect(right.ms).toBeGreaterThanOrEqual(1000);

    // A burst over many connections gains nothing: attempts queue one delay apart, and those that
    // would wait longer than the maximum are refused without their password being checked.
    const burst = await Promise.all(Array.from({ length: 8 }, (_, i) => tryPasswords(victim, [`burst-${i}-Xq7w`])));
    expect(burst.every((a) => a.outcome === "refused")).toBe(true);
    expect(
      logged("sftp login failed").filter((l) => l.username === victim.username && l.throttled === true).length,
    ).toBeGreaterThanOrEqual(4);

    // The address's backoff holds for another login name from it too.
    const sprayed = await tryPasswords(other, [other.password]);
    expect(sprayed.outcome).toBe("ready");
    expect(sprayed.ms).toBeGreaterThanOrEqual(800);

    const failures = logged("sftp login failed").filter((l) => l.username === victim.username);
    expect(failures).toHaveLength(guesses.length + burst.length);
    for (const line of failures)
      expect(line).toMatchObject({ level: "warn", address: "127.0.0.1", method: "password" });
    expect(runtime.output()).not.toMatch(/Xq7w/);
    expect(runtime.output()).not.toContain(victim.password);
  }, 90_000);

  it("a connection is closed after SFTP_MAX_AUTH_TRIES failed attempts: a hundred passwords in one connection get four tries", async () => {
    const victim = await newFeed();
    const attempt = await tryPasswords(
      victim,
      Array.from({ length: 100 }, (_, i) => `many-${i}-Zk9p`),
    );
    expect(attempt.outcome).toBe("closed");
    expect(attempt.tried).toBeLessThanOrEqual(5);
    expect(logged("sftp login failed").filter((l) => l.username === victim.username)).toHaveLength(4);
    expect(
      logged("sftp connection closed: too many failed logins").filter((l) => l.username === victim.username),
    ).toEqual([expect.objectContaining({ address: "127.0.0.1", connectionFailures: 4 })]);
    expect(runtime.output()).not.toMatch(/Zk9p/);
  }, 60_000);
});
