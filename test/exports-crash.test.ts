import { readdir, readFile } from "node:fs/promises";
import { createServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import { afterAll, describe, expect, it, vi } from "vitest";
import { adminToken, call } from "./http";
import { childrenGone } from "./children-gone";
import { withDiagnostics } from "./with-diagnostics";
import { runtimeEnv, startRuntime, tempDir, type Runtime } from "./runtime";
import { startSftpTarget, type SftpTarget } from "./sftp-target";

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const PASSWORD = "crash-Test-pa55word";

/**
 * A run whose instance dies: the export's first attempt hangs in the SSH handshake of a server that
 * never answers, the runtime is killed (`kill -9`) meanwhile, and started again on the same data: the
 * run is taken up again (its lease over) and completes with attempt 2, one run, one file.
 */
describe("an export run across a crash", () => {
  const data = tempDir("ids-export-crash-");
  const runtimes: Runtime[] = [];
  const sockets: Socket[] = [];
  let silent: Server | undefined;
  let target: SftpTarget | undefined;
  afterAll(async () => {
    await Promise.all(runtimes.map((r) => r.stop()));
    for (const s of sockets) s.destroy();
    silent?.close();
    await target?.close();
    data.remove();
  }, 60_000);

  it("kill -9 mid-run: after the restart the run completes once, on its second attempt, and the file is written once", async () => {
    target = await startSftpTarget({ users: [{ username: "ids", password: PASSWORD }] });
    // A server that accepts the connection and never speaks: the attempt waits in the handshake.
    silent = createServer((socket) => sockets.push(socket));
    const silentPort = await new Promise<number>((resolve) =>
      silent!.listen(0, "127.0.0.1", () => resolve((silent!.address() as { port: number }).port)),
    );
    const env = await runtimeEnv(data.path, {
      EXPORTS_SCHEDULE: "*/1 * * * * *",
      EXPORTS_RUN_LEASE_SECONDS: "6",
      EXPORTS_RETRY_DELAY_SECONDS: "1",
      EXPORTS_SFTP_CONNECT_TIMEOUT_SECONDS: "60",
    });
    const first = await startRuntime(env);
    runtimes.push(first);
    let token = await adminToken(first.baseUrl);
    const created = await call("POST", "/api/v1/settings/exports", {
      base: first.baseUrl,
      token,
      body: {
        name: "crash",
        dataType: "securities",
        format: "csv",
        schedule: { frequency: "daily", time: "03:00" },
        destination: {
          type: "sftp",
          host: "127.0.0.1",
          port: silentPort,
          username: "ids",
          password: PASSWORD,
          path: "/crash",
        },
        fileName: "securities_{exportId}.csv",
      },
    });
    expect(created.status, created.text).toBe(201);
    const id = created.body.data.id as string;
    const run = await call("POST", `/api/v1/settings/exports/${id}/run`, { base: first.baseUrl, token });
    expect(run.status, run.text).toBe(202);

    await withDiagnostics(
      vi.waitFor(() => expect(sockets.length, "the attempt never connected").toBeGreaterThan(0), {
        timeout: 20_000,
        interval: 50,
      }),
      () => first.output(),
    );
    // The hanging attempt holds its own copy of the destination; the next one will find the real server.
    const patched = await call("PATCH", `/api/v1/settings/exports/${id}`, {
      base: first.baseUrl,
      token,
      body: { destination: { port: target.port } },
    });
    expect(patched.status, patched.text).toBe(200);
    const during = (await call("GET", `/api/v1/settings/exports/${id}/runs`, { base: first.baseUrl, token })).body.data;
    expect(during).toMatchObject([{ id: run.body.data.id, status: "running", attempts: 1 }]);
    await first.kill();
    await childrenGone(data.path);

    const second = await startRuntime(env);
    runtimes.push(second);
    token = await adminToken(second.baseUrl);
    const runs = await withDiagnostics(
      vi.waitFor(
        async () => {
          const current: { id: string; status: string; attempts: number; rows: number; fileName: string }[] = (
            await call("GET", `/api/v1/settings/exports/${id}/runs`, { base: second.baseUrl, token })
          ).body.data;
          if (current.some((r) => r.status === "running" || r.status === "retrying"))
            throw new Error(`the run did not finish after the restart: ${JSON.stringify(current)}`);
          return current;
        },
        { timeout: 45_000, interval: 250 },
      ),
      () => second.output(),
    );
    expect(runs).toMatchObject([
      { id: run.body.data.id, status: "succeeded", attempts: 2, fileName: `securities_${id}.csv` },
    ]);
    // The crashed attempt's queue message comes back too: it finds the run finished and does nothing.
    await sleep(2_000); // waits to show that it does nothing
    expect(
      (await call("GET", `/api/v1/settings/exports/${id}/runs`, { base: second.baseUrl, token })).body.data,
    ).toMatchObject([{ status: "succeeded", attempts: 2 }]);
    expect(await readdir(join(target.root, "crash"))).toEqual([`securities_${id}.csv`]);
    const [header] = parse(await readFile(join(target.root, "crash", `securities_${id}.csv`)));
    expect(header).toContain("isin");
  }, 120_000);
});
