import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { HTTPRequest } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  byRole,
  choose,
  click,
  expectAccessible,
  fill,
  find,
  intercept,
  openArea,
  pageTo,
  screenshot,
  signIn,
  textOf,
  useBrowser,
  waitForText,
} from "./browser";
import { adminToken, call } from "../http";
import { tempDir } from "../runtime";

/** A provider's sample: two good rows, one bad ISIN (row 2) and one asset class the map does not know (row 4). */
const SAMPLE = [
  "ISIN;Name;Asset class;Currency",
  "DE0007164600;SAP SE;Aktie;EUR",
  "DE0007164601;Bad check digit AG;Aktie;EUR",
  "US0378331005;Apple Inc.;Aktie;USD",
  "XS2346207892;Some swap;Derivat;EUR",
  "",
].join("\n");

describe("console › Feeds: New Feed with its mapping, the SFTP password once, a dry run of a sample file, go live", () => {
  const session = useBrowser();
  const files = tempDir("ids-console-feed-");
  const sample = join(files.path, "securities-20261125.csv");
  // The same rows under a header that says "Ccy" where the feed maps "Currency".
  const renamed = join(files.path, "securities-20261126.csv");
  let password = "";

  beforeAll(() => {
    writeFileSync(sample, SAMPLE);
    writeFileSync(renamed, SAMPLE.replace(";Currency", ";Ccy"));
  });
  afterAll(() => files.remove());

  it("creates a feed with format options and a mapping; a refusal is shown beside its field; the SFTP password is shown once", async () => {
    const { page } = session();
    await signIn(page);
    await openArea(page, "Feeds");
    await click(page, "button", "New Feed");
    const dialog = await find(page, "dialog", "New Feed");
    await fill(dialog, "Name", "Console vendor master");
    await fill(dialog, "Provider", "Example Data Vendor");
    await choose(dialog, "Data type", "Securities");
    await choose(dialog, "Format", "CSV");
    await choose(dialog, "Delimiter", "Semicolon ;");
    // The mapping editor lists the securities record's fields, from the service's OpenAPI document.
    await fill(dialog, "Source of isin", "ISIN");
    await fill(dialog, "Source of name", "Name");
    await fill(dialog, "Source of currency", "Currency");
    await fill(dialog, "Source of assetClass", "Asset class");
    await click(dialog, "button", "Rule options for assetClass");
    await fill(dialog, "Value map (FROM=TO, one per line)", "Aktie=equity\nAnleihe=bond");
    await expectAccessible(page);
    await screenshot(page, "feeds-new");
    // No file pattern: the API's 422 names filePattern, shown beside File pattern.
    await click(dialog, "button", "Save");
    await dialog.waitForSelector('input[aria-invalid="true"]');
    const invalid = await dialog.$$eval('[aria-invalid="true"]', (els) =>
      els.map((el) => document.querySelector(`label[for="${el.id}"]`)?.textContent),
    );
    expect(invalid).toEqual(["File pattern"]);
    expect(await dialog.$eval(byRole("textbox", "Source of isin"), (el) => (el as HTMLInputElement).value)).toBe(
      "ISIN",
    );

    await fill(dialog, "File pattern", "securities-*.csv");
    await click(dialog, "button", "Save");
    const created = await find(page, "dialog", "Feed created");
    password = await created.$eval(byRole("textbox", "SFTP password"), (el) => (el as HTMLInputElement).value);
    expect(password.length).toBeGreaterThanOrEqual(20);
    expect(await textOf(page, "dialog")).toMatch(/Username\s*feed-/);
    await click(created, "button", "Done");
    await find(page, "heading", "Console vendor master");
    const main = await textOf(page);
    expect(main).not.toContain(password);
    expect(main).toContain("Asset class; map Aktie=equity, Anleihe=bond");
    expect(main).toContain('delimiter: ";"');
  });

  it("dry-runs an uploaded sample: pending while it runs, then the verdict, the mapped preview rows and the row errors", async () => {
    const { page, problems } = session();
    const input = await page.waitForSelector("input[type=file]");
    expect(await page.$eval(byRole("button", "Run dry run"), (b) => b.tagName)).toBe("BUTTON");
    await input?.uploadFile(sample);
    // Hold the dry run's request until the page has shown that it is under way.
    let held: HTTPRequest | undefined;
    const stop = await intercept(page, (request) => {
      if (!request.url().includes("/test?fileName=")) return false;
      held = request;
      return true;
    });
    await click(page, "button", "Run dry run");
    await find(page, "button", "Checking…");
    await waitForText(page, "Reading, mapping and validating securities-20261125.csv");
    expect(held?.method()).toBe("POST");
    await held?.continue();
    await stop();

    await waitForText(page, "4 records: 2 valid, 2 rejected");
    const result = await textOf(page, ".dry-run");
    expect(result).toContain("rejected");
    const tables = await page.$$eval(".dry-run table", (ts) =>
      ts.map((t) => Array.from(t.querySelectorAll("tbody tr")).map((tr) => (tr as HTMLElement).innerText.split("\t"))),
    );
    expect(tables[0]?.map((r) => r[0])).toEqual(["DE0007164600", "US0378331005"]);
    expect(tables[0]?.[0]).toEqual(["DE0007164600", "SAP SE", "equity", "EUR"]);
    const errors = tables[1] ?? [];
    expect(errors.map((r) => [r[0], r[1]])).toEqual([
      ["2", "isin"],
      ["4", "assetClass"],
    ]);
    expect(errors[1]?.[3]).toContain("Derivat");
    await expectAccessible(page);
    await screenshot(page, "feed-dry-run", ".dry-run");
    expect(problems).toEqual([]);
  });

  it("a sample whose header lacks a mapped column gets the rejected badge, even under skip-row, with one error at row 0 naming the column", async () => {
    const { page, problems } = session();
    const id = await page.evaluate(() => decodeURIComponent(location.hash.split("/")[2] ?? ""));
    // skip-row: a file none of whose rows loaded used to be shown "accepted".
    const patched = await call("PATCH", `/api/v1/settings/feeds/${id}`, {
      token: await adminToken(),
      body: { validation: { onRowError: "skip-row" } },
    });
    expect(patched.status, patched.text).toBe(200);
    const input = await page.waitForSelector("input[type=file]");
    await input?.uploadFile(renamed);
    await click(page, "button", "Run dry run");
    await waitForText(page, 'lacks the mapped column "Currency"');
    const badge = await page.$eval(".dry-run .status", (el) => [el.textContent, el.className]);
    expect(badge).toEqual(["rejected", "status bad"]);
    expect(await textOf(page, ".dry-run")).toContain("the file would be quarantined");
    const errors = await page.$$eval(".dry-run table", (ts) =>
      Array.from(ts[1]?.querySelectorAll("tbody tr") ?? []).map((tr) => (tr as HTMLElement).innerText.split("\t")),
    );
    expect(errors.map((r) => r.slice(0, 3))).toEqual([
      ["0", "currency", "Currency"],
      ["2", "isin", "ISIN"],
      ["4", "assetClass", "Asset class"],
    ]);
    expect(errors[0]?.[3]).toBe(
      'the mapped column "Currency" is not in the file\'s header (its columns: "ISIN", "Name", "Asset class", "Ccy")',
    );
    expect(problems).toEqual([]);
  });

  it("goes live, and rotating the credentials shows a new password once", async () => {
    const { page } = session();
    await click(page, "button", "Go live");
    await waitForText(page, "The feed is live");
    await find(page, "button", "Pause");
    await click(page, "button", "Rotate credentials");
    const confirm = await find(page, "dialog", "Rotate SFTP credentials");
    await click(confirm, "button", "Issue a new password");
    const shown = await find(page, "dialog", "New SFTP password");
    const rotated = await shown.$eval(byRole("textbox", "SFTP password"), (el) => (el as HTMLInputElement).value);
    expect(rotated).not.toBe(password);
    await click(shown, "button", "Done");
    await page.waitForFunction(() => document.querySelector("dialog") === null);
    expect(await textOf(page)).not.toContain(rotated);
  });

  it("lists the feed, and deletes it after a confirmation", async () => {
    const { page } = session();
    const id = await page.evaluate(() => decodeURIComponent(location.hash.split("/")[2] ?? ""));
    await click(page, "link", "All feeds");
    await pageTo(page, "Feeds", "Console vendor master");
    await expectAccessible(page);
    await screenshot(page, "feeds");
    await click(page, "link", "Console vendor master");
    await click(page, "button", "Delete");
    await click(await find(page, "dialog", "Delete feed"), "button", "Delete feed");
    await find(page, "heading", "Feeds");
    expect((await call("GET", `/api/v1/settings/feeds/${id}`, { token: await adminToken() })).status).toBe(404);
  });
});
