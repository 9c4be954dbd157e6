import { BlobServiceClient } from "@azure/storage-blob";
import { afterAll, beforeAll, describe, expect, inject, it, vi } from "vitest";
import { click, expectAccessible, find, screenshot, signIn, textOf, useBrowser, waitForText } from "./browser";
import { adminToken, call, uniqueCode } from "../http";
import { newIsin } from "../investment-fixtures";
import { WebhookReceiver } from "../webhook-receiver";

/**
 * The Overview, the console's landing page, against the shared runtime: a webhook an administrator
 * disabled, a feed file that failed (its job), an export whose run failed, the exception the bad row
 * opened and the replica's state, each a link to the item.
 */
describe("console › Overview: what needs attention, each a link to the item", () => {
  const session = useBrowser();
  const receiver = new WebhookReceiver();
  let token = "";
  let webhookId = "";
  let jobId = "";
  let exportName = "";
  const fileName = `securities-${uniqueCode("ov").toLowerCase()}.csv`;

  beforeAll(async () => {
    token = await adminToken();
    await receiver.up();
    const hook = await call("POST", "/api/v1/settings/webhooks", {
      token,
      body: { url: receiver.url, events: ["refresh_job.failed"], description: "overview" },
    });
    expect(hook.status, hook.text).toBe(201);
    webhookId = hook.body.data.id;
    expect(
      (await call("PATCH", `/api/v1/settings/webhooks/${webhookId}`, { token, body: { status: "disabled" } })).status,
    ).toBe(200);

    const feed = await call("POST", "/api/v1/settings/feeds", {
      token,
      body: {
        name: "Overview securities",
        provider: "Custodian",
        dataType: "securities",
        format: "csv",
        filePattern: "securities-*.csv",
        mapping: { isin: "ISIN", name: "Name", assetClass: "Class", currency: "Ccy" },
        validation: { onRowError: "skip-row" },
        status: "live",
      },
    });
    expect(feed.status, feed.text).toBe(201);
    const feedId = feed.body.data.id as string;
    // A file with a bad row (the row skipped, an exception opened) and one that cannot be read (a failed job).
    const inbound = BlobServiceClient.fromConnectionString(inject("storageConnectionString")).getContainerClient(
      "inbound",
    );
    const oneBad = `ISIN,Name,Class,Ccy\n${newIsin("GB")},Good plc,equity,GBP\n${newIsin("GB")},Bad plc,shares,GBP\n`;
    const corrupt = `ISIN,Name,Class,Ccy\n${newIsin("GB")},"Unclosed,equity,GBP\n`;
    await inbound
      .getBlockBlobClient(`${feedId}/${fileName.replace(".csv", "-rows.csv")}`)
      .upload(oneBad, Buffer.byteLength(oneBad));
    await inbound.getBlockBlobClient(`${feedId}/${fileName}`).upload(corrupt, Buffer.byteLength(corrupt));
    jobId = await vi.waitFor(
      async () => {
        const jobs = (await call("GET", `/api/v1/jobs?feedId=${feedId}`, { token })).body.data as any[];
        const job = jobs.find((j) => j.fileName === fileName && j.status === "failed");
        if (job === undefined) throw new Error("no failed job yet");
        return job.id as string;
      },
      { timeout: 30_000, interval: 200 },
    );

    exportName = `Overview export ${uniqueCode("x")}`;
    const created = await call("POST", "/api/v1/settings/exports", {
      token,
      body: {
        name: exportName,
        dataType: "securities",
        format: "csv",
        schedule: { frequency: "daily", time: "23:59" },
        destination: {
          type: "sftp",
          host: "127.0.0.1",
          port: 1,
          username: "u",
          password: "overview-Secret-1",
          path: "/",
        },
        fileName: "s.csv",
      },
    });
    expect(created.status, created.text).toBe(201);
    const exportId = created.body.data.id as string;
    expect((await call("POST", `/api/v1/settings/exports/${exportId}/run`, { token })).status).toBe(202);
    await vi.waitFor(
      async () => {
        const run = (await call("GET", `/api/v1/settings/exports/${exportId}`, { token })).body.data.lastRun;
        if (run?.status !== "failed" && run?.status !== "retrying") throw new Error(`run ${run?.status}`);
      },
      { timeout: 60_000, interval: 250 },
    );
  }, 120_000);
  afterAll(async () => {
    await receiver.down();
  });

  it("is the landing page: failing webhooks, failed jobs and runs of the last 24 h, open exceptions by type, the replica", async () => {
    const { page, problems } = session();
    await signIn(page);
    await find(page, "heading", "Overview");
    expect(await page.$eval('nav a[aria-current="page"]', (a) => a.textContent)).toBe("Overview");
    await waitForText(page, receiver.url);
    await waitForText(page, fileName);
    await waitForText(page, exportName);
    await waitForText(page, "VALIDATION_FAILED");
    await page.waitForFunction(() =>
      /Replica lag\s*(This deployment has no read-only SQL replica|Not measured yet|[\d,]+ s behind)/.test(
        document.querySelector("main")?.innerText ?? "",
      ),
    );
    const text = await textOf(page);
    expect(text).toContain("Disabled by an administrator");
    expect(text).toContain("could not open an SSH session with 127.0.0.1:1");
    // Each is a link to the item.
    const links = await page.$$eval("main .overview a", (as) => as.map((a) => [a.textContent, a.getAttribute("href")]));
    expect(links).toContainEqual([receiver.url, `#/webhooks/${webhookId}`]);
    expect(links).toContainEqual([fileName, `#/jobs/${jobId}`]);
    expect(links).toContainEqual(["VALIDATION_FAILED", "#/exceptions?status=open&type=VALIDATION_FAILED"]);
    await expectAccessible(page);
    await screenshot(page, "overview");

    await click(page, "link", "VALIDATION_FAILED");
    await find(page, "heading", "Exceptions");
    await page.waitForFunction(() => document.querySelector("main table tbody tr") !== null);
    const types = await page.$$eval("main table tbody tr", (trs) => trs.map((tr) => tr.textContent ?? ""));
    expect(types.every((t) => t.includes("VALIDATION_FAILED"))).toBe(true);

    await click(page, "link", "Overview");
    await click(page, "link", fileName);
    await waitForText(page, fileName);
    expect(page.url()).toContain(`#/jobs/${jobId}`);
    expect(problems).toEqual([]);
  });
});
