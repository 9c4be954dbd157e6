import { BlobServiceClient, type ContainerClient } from "@azure/storage-blob";
import { afterAll, assert, beforeAll, describe, expect, it, vi } from "vitest";
import {
  choose,
  click,
  expectAccessible,
  fill,
  find,
  openArea,
  screenshot,
  signIn,
  textOf,
  useBrowser,
  waitForText,
} from "./browser";
import { adminToken, call, storageConnectionString, useOwnRuntime } from "../http";

// Its own runtime: the jobs and exceptions this file looks for are then the only ones there.
useOwnRuntime();

const GOOD = [
  "ISIN;Name;Asset class;Currency",
  "DE0007164600;SAP SE;Aktie;EUR",
  "US0378331005;Apple Inc.;Aktie;USD",
  "",
].join("\n");
const ONE_BAD = [
  "ISIN;Name;Asset class;Currency",
  "CH0038863350;Nestlé S.A.;Aktie;CHF",
  "DE0007164601;Wrong check digit AG;Aktie;EUR",
  "",
].join("\n");

describe("console › Blob Sources, Jobs and Exceptions, against the real components", () => {
  const session = useBrowser();
  let container: ContainerClient;
  let containerUrl = "";
  let feedId = "";
  let token = "";

  beforeAll(async () => {
    token = await adminToken();
    const blobs = BlobServiceClient.fromConnectionString(storageConnectionString());
    container = blobs.getContainerClient(`console-${Date.now().toString(36)}`);
    await container.create();
    containerUrl = `${blobs.url.replace(/\/$/, "")}/${container.containerName}`;
    for (const [name, content] of [
      ["daily/securities-20261124.csv", GOOD],
      ["daily/securities-20261125.csv", ONE_BAD],
      ["other/securities-20261125.csv", GOOD],
    ]) {
      await container.getBlockBlobClient(name ?? "").upload(content ?? "", Buffer.byteLength(content ?? ""));
    }
    const feed = await call("POST", "/api/v1/settings/feeds", {
      token,
      body: {
        name: "Custodian securities",
        provider: "Custodian",
        dataType: "securities",
        format: "csv",
        filePattern: "securities-*.csv",
        options: { delimiter: ";" },
        mapping: {
          isin: "ISIN",
          name: "Name",
          currency: "Currency",
          assetClass: { source: "Asset class", map: { Aktie: "equity" } },
        },
        validation: { onRowError: "skip-row" },
        status: "live",
      },
    });
    expect(feed.status, feed.text).toBe(201);
    feedId = feed.body.data.id;
  });
  afterAll(async () => {
    await container.delete();
  });

  it("adds a blob source (a refusal beside Container URL first), runs it now, and lists what the run copied", async () => {
    const { page } = session();
    await signIn(page);
    await openArea(page, "Blob Sources");
    await click(page, "button", "New Blob Source");
    const dialog = await find(page, "dialog", "New Blob Source");
    await fill(dialog, "Name", "Custodian drop");
    await fill(dialog, "Container URL", "https://files.example.com/drop");
    await fill(dialog, "Prefix", "daily/");
    await fill(dialog, "File pattern", "securities-*.csv");
    await choose(dialog, "Feed", "Custodian securities (securities-*.csv)");
    await choose(dialog, "Every", "Day");
    await fill(dialog, "At (UTC)", "05:00");
    await expectAccessible(page);
    // Test connection refuses what saving would, beside the field it names.
    await click(dialog, "button", "Test connection");
    await dialog.waitForSelector('input[aria-invalid="true"]');
    expect(await textOf(page, "dialog")).not.toContain("Connection test");
    await click(dialog, "button", "Save");
    await dialog.waitForSelector('input[aria-invalid="true"]');
    expect(
      await dialog.$$eval('[aria-invalid="true"]', (els) =>
        els.map((el) => document.querySelector(`label[for="${el.id}"]`)?.textContent),
      ),
    ).toEqual(["Container URL"]);

    // Test connection: the container listed under the prefix.
    await fill(dialog, "Container URL", containerUrl);
    await click(dialog, "button", "Test connection");
    await waitForText(page, "Connection test passed", "dialog");
    const steps = await dialog.$$eval(".test-steps li", (lis) => lis.map((li) => (li as HTMLElement).innerText));
    expect(steps).toHaveLength(2);
    expect(steps[0]).toMatch(/^Find the server\s*passed/);
    expect(steps[1]).toMatch(/^List the container\s*passed/);
    expect(steps[1]).toContain("daily/securities-20261124.csv");
    expect(await dialog.$$('[aria-invalid="true"]')).toHaveLength(0);
    await screenshot(page, "blob-source-connection-test");
    await click(dialog, "button", "Save");
    await find(page, "heading", "Custodian drop");
    expect(await textOf(page)).toContain("Every day from 05:00 UTC");
    await click(page, "button", "Run now");
    await page.waitForFunction(
      () => document.querySelector("main table tbody tr")?.textContent?.includes("succeeded") === true,
      { timeout: 30_000 },
    );
    const row = await page.$eval("main table tbody tr", (tr) =>
      Array.from(tr.querySelectorAll("td")).map((td) => td.innerText),
    );
    // Listed under daily/: two blobs, both matching, both copied (other/ is not listed).
    expect(row.slice(3, 7)).toEqual(["2", "2", "2", "0"]);
    expect(row[7]).toContain("daily/securities-20261124.csv");
    await expectAccessible(page);
    await screenshot(page, "blob-source");
  });

  it("lists the jobs the copied files became (filtered by the feed), and a job's counts and errors", async () => {
    const { page, problems } = session();
    // The files are ingested in the background: wait until both jobs are done.
    await vi.waitFor(
      async () => {
        const jobs = await call("GET", `/api/v1/jobs?feedId=${feedId}`, { token });
        expect(jobs.body.data.filter((j: { status: string }) => j.status !== "running")).toHaveLength(2);
      },
      { timeout: 30_000, interval: 250 },
    );
    await click(page, "link", "its jobs");
    await find(page, "heading", "Jobs");
    expect(await page.$eval("main input", (el) => el.value)).toBe(feedId);
    // Two rows, each naming its feed (the feeds' names arrive in a request of their own).
    await page.waitForFunction(() => {
      const rows = Array.from(document.querySelectorAll("main table tbody tr"));
      return rows.length === 2 && rows.every((tr) => tr.textContent?.includes("Custodian securities"));
    });
    const rows = await page.$$eval("main table tbody tr", (trs) =>
      trs.map((tr) => Array.from(tr.querySelectorAll("td")).map((td) => td.innerText)),
    );
    // Status, the feed's name (not its id), the file, how long it took; then source, data type and counts.
    expect(
      rows
        .map((r) => [r[1], r[2], r[3], r[5], r[6], r[7], r[8], r[9]])
        .sort((a, b) => String(a[2]).localeCompare(String(b[2]))),
    ).toEqual([
      [
        "completed",
        "Custodian securities",
        expect.stringContaining("securities-20261124.csv"),
        "blob",
        "securities",
        "2",
        "2",
        "0",
      ],
      [
        "completed",
        "Custodian securities",
        expect.stringContaining("securities-20261125.csv"),
        "blob",
        "securities",
        "2",
        "1",
        "1",
      ],
    ]);
    for (const r of rows) expect(r[4]).toMatch(/^\d+(\.\d)? (ms|s)$|^\d+ min \d\d s$/);
    await expectAccessible(page);
    await screenshot(page, "jobs");

    const withError = await page.waitForSelector("::-p-xpath(//main//tr[contains(., 'securities-20261125.csv')]//a)");
    await withError?.click();
    await find(page, "heading", "Summary");
    expect(await textOf(page)).toMatch(/Received \/ accepted \/ rejected\s*2 \/ 1 \/ 1/);
    // The feed by its name (read from the feeds; its id until then).
    await page.waitForFunction(() =>
      /Feed\s*Custodian securities/.test(document.querySelector("main")?.innerText ?? ""),
    );
    expect(await textOf(page)).toMatch(/Duration\s*\d/);
    const job = (await call("GET", `/api/v1/jobs?feedId=${feedId}`, { token })).body.data.find(
      (j: { counts: { rejected: number } }) => j.counts.rejected === 1,
    );
    // The job's errors as the API gives them, one row each.
    const shown = await page.$$eval("main table tbody tr", (trs) => trs.map((tr) => (tr as HTMLElement).innerText));
    expect(shown).toEqual(job.errors.map((e: { field: string; message: string }) => `${e.field}\t${e.message}`));
    await expectAccessible(page);

    // A filter that matches nothing says so.
    await click(page, "link", "All jobs");
    await (await find(page, "combobox", "Status")).select("failed");
    await waitForText(page, "No jobs match these filters.");
    expect(problems).toEqual([]);
  });

  it("lists the exception the rejected row opened, filtered by type, and resolves it", async () => {
    const { page } = session();
    await openArea(page, "Exceptions");
    await choose(page, "Type", "VALIDATION_FAILED");
    await waitForText(page, "securities-20261125.csv row 2");
    await expectAccessible(page);
    await screenshot(page, "exceptions");
    const resolve = await page.waitForSelector(
      "::-p-xpath(//main//tr[contains(., 'securities-20261125.csv row 2')]//button[normalize-space()='Resolve'])",
    );
    assert(resolve !== null);
    // At 1280 px the row's Resolve button is in view as the page opens: the table fits, nothing to scroll sideways.
    const fits = await resolve.evaluate((button) => {
      const wrap = button.closest(".table-wrap") as HTMLElement;
      return {
        buttonRight: Math.ceil(button.getBoundingClientRect().right) <= Math.floor(wrap.getBoundingClientRect().right),
        tableScrolls: wrap.scrollWidth > wrap.clientWidth,
        pageScrolls: document.documentElement.scrollWidth > window.innerWidth,
      };
    });
    expect(fits).toEqual({ buttonRight: true, tableScrolls: false, pageScrolls: false });
    await resolve.click();
    await waitForText(page, "Resolved:");
    await page.waitForFunction(
      () => !document.querySelector("main table")?.textContent?.includes("securities-20261125.csv row 2"),
    );
    await choose(page, "Status", "Resolved");
    await page.waitForFunction(() =>
      Array.from(document.querySelectorAll("main tbody tr")).some(
        (tr) => tr.textContent?.includes("securities-20261125.csv row 2") && tr.textContent.includes("resolved"),
      ),
    );
    const open = await call("GET", "/api/v1/exceptions?status=open&type=VALIDATION_FAILED", { token });
    expect(
      open.body.data.filter((e: { message: string }) => e.message.includes("securities-20261125.csv row 2")),
    ).toEqual([]);
  });

  it("a file failed by a wrong mapping: Download file, then Process again once the mapping is fixed, links to the new job; its exceptions link their feed and are resolved together with a note", async () => {
    const { page, problems } = session();
    const blobs = BlobServiceClient.fromConnectionString(storageConnectionString());
    const content = [
      "ISIN;Name;Asset class;Ccy",
      "FR0000120271;TotalEnergies SE;Aktie;EUR",
      "FR0000120272;Wrong digit one;Aktie;EUR",
      "FR0000120273;Wrong digit two;Aktie;EUR",
      "",
    ].join("\n");
    await blobs
      .getContainerClient("inbound")
      .getBlockBlobClient(`${feedId}/securities-20261126.csv`)
      .upload(content, Buffer.byteLength(content));
    const failed = await vi.waitFor(
      async () => {
        const jobs = await call("GET", `/api/v1/jobs?feedId=${feedId}&status=failed`, { token });
        const job = jobs.body.data.find((j: { fileName: string }) => j.fileName === "securities-20261126.csv");
        expect(job).toBeDefined();
        return job;
      },
      { timeout: 30_000, interval: 250 },
    );
    await page.evaluate((id) => {
      location.hash = `#/jobs/${encodeURIComponent(id)}`;
    }, failed.id);
    await find(page, "heading", `Job ${failed.id}`);
    const downloaded = page.waitForResponse((r) => r.url().endsWith(`/api/v1/jobs/${failed.id}/file`));
    await click(page, "button", "Download file");
    expect((await downloaded).status()).toBe(200);

    // The mapping fixed (the file says Ccy), the file is processed again from its job's page.
    const fixed = await call("PATCH", `/api/v1/settings/feeds/${feedId}`, {
      token,
      body: {
        mapping: {
          isin: "ISIN",
          name: "Name",
          currency: "Ccy",
          assetClass: { source: "Asset class", map: { Aktie: "equity" } },
        },
      },
    });
    expect(fixed.status, fixed.text).toBe(200);
    await click(page, "button", "Process again");
    const dialog = await page.waitForSelector("dialog[open]");
    assert(dialog !== null);
    await click(dialog, "button", "Process again");
    await page.waitForFunction(
      (old) =>
        /^Job job_/.test(document.querySelector("main h1")?.textContent ?? "") &&
        !document.querySelector("main h1")?.textContent?.includes(old),
      {},
      failed.id,
    );
    await waitForText(page, "Processed again from");
    await page.waitForFunction(
      () => /Received \/ accepted \/ rejected\s*3 \/ 1 \/ 2/.test(document.querySelector("main")?.innerText ?? ""),
      { timeout: 30_000 },
    );
    const reprocessed = (await call("GET", `/api/v1/jobs?feedId=${feedId}`, { token })).body.data.find(
      (j: { reprocessOf?: string }) => j.reprocessOf === failed.id,
    );
    expect(reprocessed).toMatchObject({ status: "completed", counts: { received: 3, accepted: 1, rejected: 2 } });
    expect(await textOf(page, "main h1")).toBe(`Job ${reprocessed.id}`);

    // Its two rejected rows: their entity (the feed) links to the feed, named (the names come in a
    // request of their own); both resolved at once with a note.
    await openArea(page, "Exceptions");
    await choose(page, "Type", "VALIDATION_FAILED");
    await waitForText(page, "securities-20261126.csv row 3");
    await waitForText(page, "Feed Custodian securities");
    const links = await page.$$eval("main tbody tr", (trs) =>
      trs
        .filter((tr) => tr.textContent?.includes("securities-20261126.csv"))
        .map((tr) => {
          const a = tr.querySelector("a[href^='#/feeds/']");
          return [a?.getAttribute("href"), a?.textContent];
        }),
    );
    expect(links).toEqual([
      [`#/feeds/${feedId}`, "Feed Custodian securities"],
      [`#/feeds/${feedId}`, "Feed Custodian securities"],
    ]);
    for (const row of [2, 3]) {
      const box = await page.waitForSelector(
        `::-p-xpath(//main//tr[contains(., 'securities-20261126.csv row ${row}')]//input[@type='checkbox'])`,
      );
      await box?.click();
    }
    await fill(page, "Note (optional)", "provider resends with fixed ISINs");
    await click(page, "button", "Resolve selected (2)");
    await waitForText(page, "Resolved 2 exceptions.");
    const resolved = await call("GET", "/api/v1/exceptions?status=resolved&type=VALIDATION_FAILED&pageSize=100", {
      token,
    });
    const ours = resolved.body.data.filter((e: { message: string }) => e.message.includes("securities-20261126.csv"));
    expect(ours.map((e: { resolution: string }) => e.resolution)).toEqual([
      "provider resends with fixed ISINs",
      "provider resends with fixed ISINs",
    ]);
    await expectAccessible(page);
    expect(problems).toEqual([]);
  });

  it("reads well in a narrow window", async () => {
    const { page } = session();
    await page.setViewport({ width: 390, height: 844 });
    await openArea(page, "Blob Sources");
    // The navigation scrolls sideways; the list keeps name, status, last and next run in view.
    const nav = await page.$eval("nav.areas", (n) => ({
      scrolls: n.scrollWidth > n.clientWidth,
      overflowX: getComputedStyle(n).overflowX,
    }));
    expect(nav).toEqual({ scrolls: true, overflowX: "auto" });
    await page.waitForFunction(() => document.querySelector("main table thead") !== null);
    const shown = await page.$$eval("main table thead th", (ths) =>
      ths.filter((th) => (th as HTMLElement).offsetParent !== null).map((th) => th.textContent),
    );
    expect(shown).toEqual(["Name", "Status", "Last run", "Next run"]);
    const row = await page.$eval("main table tbody tr", (tr) => tr.getBoundingClientRect().right);
    expect(row).toBeLessThanOrEqual(390);
    await click(page, "link", "Custodian drop");
    await find(page, "heading", "Custodian drop");
    await expectAccessible(page);
    // Nothing wider than the window but the tables, which scroll inside their own region.
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await screenshot(page, "narrow");
    await page.setViewport({ width: 1280, height: 800 });
  });
});
