import { execFile, execFileSync, spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { BlobServiceClient } from "@azure/storage-blob";
import { afterAll, assert, beforeAll, describe, expect, it, vi } from "vitest";
import { freePort } from "../local/launch";
import { adminToken, call } from "./http";
import { root, runtimeEnv, startRuntime, tempDir, type Runtime } from "./runtime";

const FEEDS = "/api/v1/settings/feeds";
/** The page that shows the feed examples and the onboarding steps; the tests run its blocks as written. */
const page = readFileSync(join(root, "docs/feeds.md"), "utf8");

interface Example {
  id: string;
  file: string;
  feed: Record<string, unknown>;
}
const examples = JSON.parse(readFileSync(join(root, "examples/feeds/feeds.json"), "utf8")) as Example[];
const exampleFile = (e: Example): string => join(root, "examples/feeds", e.file);

/** The page's example bodies: a `<!-- example-feed: id -->` marker, then a json code block. */
function pageExamples(): Map<string, unknown> {
  const found = new Map<string, unknown>();
  for (const m of page.matchAll(/<!-- example-feed: ([\w-]+) -->\n+```json\n([\s\S]*?)\n```/g))
    found.set(m[1] ?? "", JSON.parse(m[2] ?? ""));
  return found;
}

/** The body of step 1 of the onboarding walk-through (curl -d '…'). */
function onboardingBody(): unknown {
  const m = /FEED_JSON=\$\(curl -s -X POST \$BASE\/api\/v1\/settings\/feeds [^\n]*-d '(\{[\s\S]*?\})'\)/.exec(page);
  if (m === null) throw new Error("docs/feeds.md: no onboarding create step");
  return JSON.parse(m[1] ?? "");
}

const hasSftpClient = spawnSync("sftp", ["-V"]).error === undefined;

describe("docs/feeds.md: the onboarding steps and every format's example feed work as written", () => {
  let runtime: Runtime;
  let data: ReturnType<typeof tempDir>;
  let token: string;

  beforeAll(async () => {
    data = tempDir("ids-docs-feeds-");
    const port = String(await freePort());
    runtime = await startRuntime(await runtimeEnv(data.path, { SFTP_PORT: port, LOCAL_SFTP_PORT: port }));
    token = await adminToken(runtime.baseUrl);
  }, 60_000);
  afterAll(async () => {
    await runtime?.stop();
    data?.remove();
  }, 60_000);

  const api = (method: string, path: string, body?: unknown) =>
    call(method, path, { token, base: runtime.baseUrl, ...(body !== undefined ? { body } : {}) });
  const dryRun = async (id: string, fileName: string, file: Buffer) => {
    const response = await fetch(`${runtime.baseUrl}${FEEDS}/${id}/test?fileName=${encodeURIComponent(fileName)}`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/octet-stream" },
      body: file,
    });
    return { status: response.status, body: (await response.json()) as { data: Record<string, any> } };
  };

  it("the page's example bodies are examples/feeds/feeds.json's, one per format, each linking its file", () => {
    const shown = pageExamples();
    expect([...shown.keys()].sort()).toEqual(
      examples
        .filter((e) => e.id !== "securities-csv")
        .map((e) => e.id)
        .sort(),
    );
    for (const e of examples) {
      expect(existsSync(exampleFile(e)), e.file).toBe(true);
      if (e.id === "securities-csv") continue;
      expect(shown.get(e.id), e.id).toEqual(e.feed);
      expect(page).toContain(`[\`examples/feeds/${e.file}\`](../examples/feeds/${e.file})`);
    }
    expect(onboardingBody()).toEqual(examples.find((e) => e.id === "securities-csv")?.feed);
    expect(new Set(examples.map((e) => e.feed["format"]))).toEqual(new Set(["csv", "xlsx", "xml", "json", "fix"]));
  });

  it("each example feed reads its file with nothing rejected (the dry run through the API)", async () => {
    for (const e of examples) {
      const created = await api("POST", FEEDS, e.feed);
      expect(created.status, `${e.id}: ${created.text}`).toBe(201);
      const reply = await dryRun(created.body.data.id, basename(e.file), readFileSync(exampleFile(e)));
      expect(reply.status, `${e.id}: ${JSON.stringify(reply.body)}`).toBe(200);
      const result = reply.body.data;
      expect({ id: e.id, rejected: result.rejected, errors: result.errors }).toEqual({
        id: e.id,
        rejected: 0,
        errors: [],
      });
      expect(result.received, e.id).toBeGreaterThan(0);
      expect(result.valid, e.id).toBe(result.received);
    }
  });

  it("the page's try-one snippet (bash, curl, node) creates each example from feeds.json and dry-runs its file", async () => {
    const snippet = /```sh\n(EXAMPLE=transactions-csv[\s\S]*?)```/.exec(page)?.[1];
    expect(snippet, "docs/feeds.md: the try-one snippet").toBeDefined();
    for (const e of examples) {
      const script = (snippet ?? "").replace(/^EXAMPLE=\S+/, `EXAMPLE=${e.id}`);
      const out = await new Promise<string>((resolve, reject) => {
        execFile(
          "bash",
          ["-euo", "pipefail", "-c", script],
          {
            cwd: root,
            encoding: "utf8",
            timeout: 30_000,
            env: { ...process.env, BASE: runtime.baseUrl, TOKEN: token },
          },
          (error, stdout, stderr) =>
            error === null ? resolve(stdout) : reject(new Error(`${e.id}: ${error.message}\n${stderr}`)),
        );
      });
      const result = (JSON.parse(out) as { data: { received: number; valid: number; rejected: number } }).data;
      expect({ id: e.id, rejected: result.rejected, valid: result.valid }).toEqual({
        id: e.id,
        rejected: 0,
        valid: result.received,
      });
    }
  });

  it.skipIf(!hasSftpClient)(
    "the onboarding block itself runs in bash as written (its interactive sftp line replaced by the same put in batch mode with a key)",
    async () => {
      const block = /```sh\n(# 1\. Create the feed[\s\S]*?)```/.exec(page)?.[1] ?? "";
      const interactive = /^sftp -P 2222 \$SFTP_USER@127\.0\.0\.1$/m;
      expect(block).toMatch(interactive);
      const keyPath = join(data.path, "onboarding_key");
      execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "onboarding", "-f", keyPath]);
      writeFileSync(join(data.path, "onboarding_batch"), "put examples/feeds/csv/securities-20241231.csv\n");
      const batchPut = [
        `curl -s -X PATCH $BASE/api/v1/settings/feeds/$FEED -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' -d "{ \\"sftp\\": { \\"publicKeys\\": [\\"$(cat ${keyPath}.pub)\\"] } }" > /dev/null`,
        `sftp -b ${join(data.path, "onboarding_batch")} -i ${keyPath} -P ${runtime.sftpPort} -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o IdentitiesOnly=yes -o BatchMode=yes $SFTP_USER@127.0.0.1 > /dev/null`,
        // Step 6 reads what ingestion did: wait until the job has finished.
        `for i in $(seq 1 120); do curl -s "$BASE/api/v1/jobs?feedId=$FEED" -H "Authorization: Bearer $TOKEN" | grep -q '"status":"completed"' && break; sleep 0.25; done`,
      ].join("\n");
      const script = `${block.replace(interactive, batchPut)}\necho\necho "FEED=$FEED"`;
      const out = await new Promise<string>((resolve, reject) => {
        execFile(
          "bash",
          ["-euo", "pipefail", "-c", script],
          {
            cwd: root,
            encoding: "utf8",
            timeout: 60_000,
            env: { ...process.env, BASE: runtime.baseUrl, TOKEN: token },
          },
          (error, stdout, stderr) =>
            error === null ? resolve(stdout) : reject(new Error(`${error.message}\n${stdout}\n${stderr}`)),
        );
      });
      const feedId = /^FEED=(fd_[0-9a-f]+)$/m.exec(out)?.[1] ?? "";
      expect(feedId, out).not.toBe("");
      expect(out).toContain('"rejected":0');
      expect((await api("GET", `${FEEDS}/${feedId}`)).body.data.status).toBe("live");
      const jobs = (await api("GET", `/api/v1/jobs?feedId=${feedId}`)).body.data as Record<string, any>[];
      expect(jobs).toEqual([
        expect.objectContaining({ source: "sftp", fileName: "securities-20241231.csv", status: "completed" }),
      ]);
      // The step-6 answers are in the output: the job and the security.
      expect(out).toContain(`"feedId":"${feedId}"`);
      expect(out).toContain('"name":"SAP SE"');
    },
    90_000,
  );

  it.skipIf(!hasSftpClient)(
    "the onboarding steps end to end: create, credentials, dry run, live, a put with the sftp client, then the job and the data",
    async () => {
      // 1–2. Create; the credentials are in the answer.
      const created = await api("POST", FEEDS, onboardingBody());
      expect(created.status, created.text).toBe(201);
      const { id: feedId, sftp: login } = created.body.data;
      expect(login).toMatchObject({
        host: "127.0.0.1",
        port: runtime.sftpPort,
        username: `feed-${feedId.slice(3)}`,
        password: expect.any(String),
      });

      // 3. The dry run answers what the page shows.
      const file = readFileSync(join(root, "examples/feeds/csv/securities-20241231.csv"));
      const tried = await dryRun(feedId, "securities-20241231.csv", file);
      expect(tried.status).toBe(200);
      expect(tried.body.data).toMatchObject({ received: 4, valid: 4, rejected: 0, errors: [] });
      expect(tried.body.data.preview[0]).toEqual({
        isin: "DE0007164600",
        name: "SAP SE",
        assetClass: "equity",
        currency: "EUR",
      });

      // 4. Live.
      expect((await api("PATCH", `${FEEDS}/${feedId}`, { status: "live" })).status).toBe(200);

      // 5. The OpenSSH sftp client puts the file. The page types the password; a key does the same
      //    non-interactively (sftp -b allows no password prompt).
      const keyPath = join(data.path, "id_ed25519");
      execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "provider@example", "-f", keyPath]);
      const keyed = await api("PATCH", `${FEEDS}/${feedId}`, {
        sftp: { publicKeys: [readFileSync(`${keyPath}.pub`, "utf8").trim()] },
      });
      expect(keyed.status, keyed.text).toBe(200);
      const batch = join(data.path, "batch");
      writeFileSync(batch, "put examples/feeds/csv/securities-20241231.csv\nls -l\n");
      const sftp = await new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
        execFile(
          "sftp",
          [
            "-b",
            batch,
            "-i",
            keyPath,
            "-P",
            String(login.port),
            "-o",
            "StrictHostKeyChecking=no",
            "-o",
            "UserKnownHostsFile=/dev/null",
            "-o",
            "IdentitiesOnly=yes",
            "-o",
            "BatchMode=yes",
            `${login.username}@${login.host}`,
          ],
          { cwd: root, encoding: "utf8", timeout: 30_000 },
          (error, stdout, stderr) =>
            resolve({
              status: error === null ? 0 : typeof error.code === "number" ? error.code : null,
              stdout,
              stderr: `${stderr}${error === null ? "" : error.message}`,
            }),
        );
      });
      expect(sftp.status, `${sftp.stdout}\n${sftp.stderr}`).toBe(0);
      expect(sftp.stdout).toContain("securities-20241231.csv");

      // 6. The job, the data, the archived file.
      const job = await vi.waitFor(
        async () => {
          const jobs = await api("GET", `/api/v1/jobs?feedId=${feedId}`);
          const done = (jobs.body.data as Record<string, any>[]).find((j) => j.status !== "running");
          assert.isDefined(done, "the file's job");
          return done;
        },
        { timeout: 30_000, interval: 250 },
      );
      expect(job).toMatchObject({
        source: "sftp",
        feedId,
        fileName: "securities-20241231.csv",
        status: "completed",
        counts: { received: 4, accepted: 4, rejected: 0 },
      });
      const sap = await api("GET", "/api/v1/securities/DE0007164600");
      expect(sap.status, sap.text).toBe(200);
      expect(sap.body.data).toMatchObject({
        isin: "DE0007164600",
        name: "SAP SE",
        assetClass: "equity",
        currency: "EUR",
      });
      expect((await api("GET", "/api/v1/securities/XS2346207892")).body.data).toMatchObject({ assetClass: "bond" });
      const archived = BlobServiceClient.fromConnectionString(runtime.env.STORAGE_CONNECTION_STRING ?? "")
        .getContainerClient("archive")
        .getBlobClient(`${feedId}/securities-20241231.csv`);
      // The job completes with the last import call; the file is moved to archive just after it.
      await vi.waitFor(async () => expect(await archived.exists()).toBe(true), { timeout: 15_000, interval: 250 });
    },
    90_000,
  );
});
