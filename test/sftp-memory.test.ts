import { BlobServiceClient } from "@azure/storage-blob";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { custodianPositionsFeed } from "./feed-fixtures";
import { adminToken, call } from "./http";
import { runtimeEnv, startRuntime, tempDir, type Runtime } from "./runtime";
import { rssOf, sampleRss, uploadGenerated, type SftpLogin } from "../bench/sftp-upload";

const MB = 1024 * 1024;

/**
 * A delivered file is never held whole in memory: not by the SFTP drop (block by block into the blob)
 * nor by the blob trigger (the function is handed a reference and streams the blob). The runtime's
 * resident set size is sampled while a 160 MB file arrives and its trigger runs; before, it grew by
 * the file's size (the local blob host read the blob into a buffer to hand it over). The feed is
 * paused, so the trigger runs and leaves the file where it is: what is measured is the delivery, not
 * the parsing (bench/sftp-drop-memory.ts measures larger files, ingested).
 */
describe("SFTP drop: memory", () => {
  let runtime: Runtime;
  let data: ReturnType<typeof tempDir>;
  let login: SftpLogin & { id: string };

  beforeAll(async () => {
    data = tempDir("ids-sftp-memory-");
    // The trigger of each file is seen in its "inbound file" log line (info).
    runtime = await startRuntime(await runtimeEnv(data.path, { LOG_LEVEL: "info" }));
    const token = await adminToken(runtime.baseUrl);
    const reply = await call("POST", "/api/v1/settings/feeds", {
      token,
      base: runtime.baseUrl,
      body: { ...custodianPositionsFeed, status: "paused" },
    });
    expect(reply.status, reply.text).toBe(201);
    const { id, sftp } = reply.body.data;
    login = { id, host: sftp.host, port: runtime.sftpPort, username: sftp.username, password: sftp.password };
  }, 60_000);
  afterAll(async () => {
    await runtime?.stop();
    data?.remove();
  }, 60_000);

  const triggered = (name: string): Promise<void> =>
    expect
      .poll(() => runtime.output().includes(`"name":"${login.id}/${name}","action":"waiting"`), {
        message: `the trigger of ${name}`,
        timeout: 60_000,
        interval: 100,
      })
      .toBe(true);
  const blobSize = async (name: string): Promise<number | undefined> => {
    const blob = BlobServiceClient.fromConnectionString(runtime.env.STORAGE_CONNECTION_STRING ?? "")
      .getContainerClient("inbound")
      .getBlobClient(`${login.id}/${name}`);
    return (await blob.exists()) ? (await blob.getProperties()).contentLength : undefined;
  };

  it("a 160 MB file over SFTP and its trigger: the runtime's memory grows by far less than the file", async () => {
    // Warm up: the code paths loaded, the clients made, before the baseline is taken.
    await uploadGenerated(login, "custodian-positions-warm-up.csv", 8 * MB);
    await triggered("custodian-positions-warm-up.csv");
    const pid = runtime.child.pid as number;
    const baseline = rssOf(pid);
    const sampler = sampleRss(pid);
    const sent = await uploadGenerated(login, "custodian-positions-large.csv", 160 * MB);
    await triggered("custodian-positions-large.csv");
    const peak = sampler.stop();
    expect(await blobSize("custodian-positions-large.csv")).toBe(sent);
    const growth = peak - baseline;
    console.log(
      `runtime RSS: baseline ${Math.round(baseline / MB)} MB, peak ${Math.round(peak / MB)} MB, growth ${Math.round(growth / MB)} MB for a ${Math.round(sent / MB)} MB file`,
    );
    expect(growth).toBeLessThan(100 * MB);
  }, 120_000);

  it("a client that sends without waiting for answers cannot make the drop hold what it sends", async () => {
    const pid = runtime.child.pid as number;
    const baseline = rssOf(pid);
    const sampler = sampleRss(pid);
    const outcome = await uploadGenerated(login, "custodian-positions-flood.csv", 64 * MB, Infinity).then(
      (sent) => ({ sent }),
      (error: Error) => ({ error: error.message }),
    );
    const peak = sampler.stop();
    // Either the drop kept up (the file is stored whole) or it gave the upload up (nothing stored).
    if ("sent" in outcome) expect(await blobSize("custodian-positions-flood.csv")).toBe(outcome.sent);
    else expect(await blobSize("custodian-positions-flood.csv")).toBeUndefined();
    console.log(
      `runtime RSS under a flood: baseline ${Math.round(baseline / MB)} MB, peak ${Math.round(peak / MB)} MB (${"sent" in outcome ? "stored" : `refused: ${outcome.error}`})`,
    );
    expect(peak - baseline).toBeLessThan(100 * MB);
  }, 120_000);
});
