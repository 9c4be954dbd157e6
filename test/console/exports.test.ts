import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  byRole,
  choose,
  click,
  expectAccessible,
  fill,
  find,
  openArea,
  pageTo,
  screenshot,
  signIn,
  textOf,
  useBrowser,
  waitForText,
} from "./browser";
import { adminToken, call, uniqueCode } from "../http";
import { BOOTSTRAP } from "../runtime";
import { startSftpTarget, type SftpTarget } from "../sftp-target";

const PASSWORD = "console-export-password";

describe("console › Data Exports: New Export to an SFTP server, its preview, Run now, the run and the file", () => {
  const session = useBrowser();
  let target: SftpTarget;
  const code = uniqueCode("CONSOLE");
  let fileName = "";

  beforeAll(async () => {
    target = await startSftpTarget({ users: [{ username: "reports", password: PASSWORD }] });
    const token = await adminToken();
    const created = await call("POST", "/api/v1/portfolios", {
      token,
      body: { name: "Console export fund", code, clientId: "console", baseCurrency: "EUR" },
    });
    expect(created.status).toBe(201);
  });
  afterAll(async () => {
    await target.close();
  });

  it("previews the next runs and file names in the export's time zone, as the service computes them", async () => {
    const { page } = session();
    await signIn(page);
    await openArea(page, "Data Exports");
    await click(page, "button", "New Export");
    const dialog = await find(page, "dialog", "New Export");
    await fill(dialog, "Name", "Weekly portfolios to reports");
    await choose(dialog, "Data type", "Portfolios");
    await choose(dialog, "Format", "CSV");
    await choose(dialog, "Frequency", "Weekly");
    await choose(dialog, "Day of week", "Monday");
    await fill(dialog, "Time", "06:30");
    await fill(dialog, "Time zone", "Europe/London", "combobox");
    await fill(dialog, "File name", "portfolios_{date:yyyyMMdd}_{time:HHmm}.{format}");
    await waitForText(page, "Next runs (Europe/London)", "dialog");
    // The same runs the preview endpoint gives (the scheduler's rules), shown in the export's time zone.
    const expected = await call("POST", "/api/v1/settings/exports/preview", {
      token: await adminToken(),
      body: {
        dataType: "portfolios",
        format: "csv",
        schedule: { frequency: "weekly", dayOfWeek: 1, time: "06:30", timezone: "Europe/London" },
        fileName: "portfolios_{date:yyyyMMdd}_{time:HHmm}.{format}",
      },
    });
    const next = expected.body.data.nextRuns[0] as { at: string; fileName: string };
    expect(next.fileName).toMatch(/^portfolios_\d{8}_0630\.csv$/);
    await waitForText(page, `Next file: ${next.fileName}`, "dialog");
    const preview = await textOf(page, "dialog .preview");
    expect(preview).toMatch(/Mon, \d+ \w+ \d{4}, 06:30 (GMT|BST)/);
    await expectAccessible(page);
    await screenshot(page, "exports-new");
  });

  it("shows a refusal beside the field it names (Time zone), keeping everything typed", async () => {
    const { page } = session();
    const dialog = await find(page, "dialog", "New Export");
    await fill(dialog, "Time zone", "Mars/Olympus_Mons", "combobox");
    await fill(dialog, "Host", "127.0.0.1");
    await fill(dialog, "Port", String(target.port));
    await fill(dialog, "Username", "reports");
    await fill(dialog, "Password", PASSWORD);
    await fill(dialog, "Path", "/exports/weekly");
    await click(dialog, "button", "Save");
    await dialog.waitForSelector('input[aria-invalid="true"]');
    const invalid = await dialog.$$eval('[aria-invalid="true"]', (els) =>
      els.map((el) => document.querySelector(`label[for="${el.id}"]`)?.textContent),
    );
    expect(invalid).toEqual(["Time zone"]);
    expect(await page.evaluate(() => document.activeElement?.getAttribute("aria-invalid"))).toBe("true");
    expect(await textOf(page, "dialog")).toContain("is not an IANA time zone");
    expect(await dialog.$eval(byRole("textbox", "Host"), (el) => (el as HTMLInputElement).value)).toBe("127.0.0.1");
    expect(await dialog.$eval(byRole("textbox", "Password"), (el) => (el as HTMLInputElement).value)).toBe(PASSWORD);
  });

  it("Test connection shows each step (a wrong password fails Log in), then the server's host key, which Approve fills in", async () => {
    const { page } = session();
    const dialog = await find(page, "dialog", "New Export");
    await fill(dialog, "Password", "not-the-password");
    await click(dialog, "button", "Test connection");
    await waitForText(page, "Connection test failed", "dialog");
    const failedSteps = await dialog.$$eval(".test-steps li", (lis) =>
      lis.map((li) => ({ name: li.querySelector(".step-name")?.textContent, text: (li as HTMLElement).innerText })),
    );
    expect(failedSteps.map((s) => s.name)).toEqual([
      "Find the server",
      "Connect",
      "SSH handshake",
      "Log in",
      "Write and remove a test file",
    ]);
    expect(failedSteps[3]?.text).toContain("failed");
    expect(failedSteps[3]?.text).toContain("check the password");
    expect(failedSteps[4]?.text).toContain("skipped");

    await fill(dialog, "Password", PASSWORD);
    await click(dialog, "button", "Test connection");
    await waitForText(page, "Connection test passed", "dialog");
    expect(await textOf(page, "dialog")).toContain(`The server presented host key ${target.hostKeyOpenSshFingerprint}`);
    await click(dialog, "button", "Approve this host key");
    expect(await dialog.$eval(byRole("textbox", "Host key fingerprint"), (el) => (el as HTMLInputElement).value)).toBe(
      target.hostKeyOpenSshFingerprint,
    );
    await waitForText(page, "is the approved one", "dialog");
    await expectAccessible(page);
    await screenshot(page, "export-connection-test");
  });

  it("saves, shows the next run; Run now shows the run pending, then succeeded with its rows, and the file is on the server", async () => {
    const { page, problems } = session();
    const dialog = await find(page, "dialog", "New Export");
    await fill(dialog, "Time zone", "Europe/London", "combobox");
    await click(dialog, "button", "Save");
    await find(page, "heading", "Weekly portfolios to reports");
    const definition = await textOf(page);
    expect(definition).toMatch(/Next run\s*Mon, \d+ \w+ \d{4}, 06:30/);
    expect(definition).toContain("SFTP reports@127.0.0.1");
    expect(definition).toContain("password stored");
    expect(definition).toContain(target.hostKeyOpenSshFingerprint);
    expect(definition).toContain(`approved by ${BOOTSTRAP.id}`);
    expect(definition).not.toContain(PASSWORD);
    await expectAccessible(page);

    await click(page, "button", "Run now");
    // The run is listed at once, running, and the button says so; then it succeeds.
    await find(page, "button", "Running…");
    await page.waitForFunction(
      () => document.querySelector("main table tbody tr")?.textContent?.includes("succeeded") === true,
      { timeout: 30_000 },
    );
    const row = await page.$eval("main table tbody tr", (tr) =>
      Array.from(tr.querySelectorAll("td")).map((td) => td.innerText),
    );
    expect(row[1]).toBe("manual");
    expect(Number(row[3]?.replace(/,/g, ""))).toBeGreaterThanOrEqual(1);
    fileName = row[5] ?? "";
    expect(fileName).toMatch(/^portfolios_\d{8}_\d{4}\.csv$/);
    expect(row[7]).toBe("—");
    // The definition's Last run follows: this run and its time in the export's time zone, named
    // as its next run is (it was read once, as the page opened, and said "never" until a reload).
    const lastRun = async (): Promise<string> =>
      page.$$eval(
        "main dt",
        (dts) => (dts.find((dt) => dt.textContent === "Last run")?.nextElementSibling as HTMLElement)?.innerText ?? "",
      );
    await page
      .waitForFunction(
        () =>
          Array.from(document.querySelectorAll("main dt"))
            .find((dt) => dt.textContent === "Last run")
            ?.nextElementSibling?.textContent?.includes("succeeded") === true,
        { timeout: 10_000 },
      )
      .catch(() => undefined); // the comparison below says what it shows instead
    const id = await page.evaluate(() => decodeURIComponent(location.hash.split("/")[2] ?? ""));
    const { completedAt } = (await call("GET", `/api/v1/settings/exports/${id}`, { token: await adminToken() })).body
      .data.lastRun;
    const at = new Intl.DateTimeFormat("en-GB", {
      weekday: "short",
      day: "numeric",
      month: "short",
      year: "numeric",
      hour: "2-digit",
      minute: "2-digit",
      timeZone: "Europe/London",
      timeZoneName: "short",
    }).format(new Date(completedAt));
    expect(at).toMatch(/^\w{3}, \d+ \w+ \d{4}, \d\d:\d\d (GMT|BST)$/);
    expect((await lastRun()).split("\n")).toEqual(["succeeded", at]);
    await find(page, "button", "Run now");
    const written = await readFile(join(target.root, "exports", "weekly", fileName), "utf8");
    expect(written.split("\n")[0]).toContain("code");
    expect(written).toContain(code);
    await screenshot(page, "export-runs");
    expect(problems).toEqual([]);
  });

  it("edits the schedule keeping the stored password (left empty), and the export still runs", async () => {
    const { page } = session();
    await click(page, "button", "Edit");
    const dialog = await find(page, "dialog", "Edit export");
    expect(await dialog.$eval(byRole("textbox", "Password"), (el) => (el as HTMLInputElement).value)).toBe("");
    expect(await textOf(page, "dialog")).toContain("Stored (write-only): leave empty to keep it");
    await fill(dialog, "Time", "07:15");
    await click(dialog, "button", "Save");
    await waitForText(page, "Export saved.");
    await page.waitForFunction(() =>
      /Next run\s*Mon, \d+ \w+ \d{4}, 07:15/.test(document.querySelector("main")?.innerText ?? ""),
    );
    await click(page, "button", "Run now");
    await page.waitForFunction(
      () =>
        Array.from(document.querySelectorAll("main table tbody tr")).filter((tr) =>
          tr.textContent?.includes("succeeded"),
        ).length === 2,
      { timeout: 30_000 },
    );
  });

  it("lists the export and deletes it after a confirmation", async () => {
    const { page } = session();
    const id = await page.evaluate(() => decodeURIComponent(location.hash.split("/")[2] ?? ""));
    await click(page, "link", "All exports");
    await pageTo(page, "Data Exports", "Weekly portfolios to reports");
    expect(await textOf(page)).toContain("Weekly on Monday at 07:15 (Europe/London)");
    await expectAccessible(page);
    await screenshot(page, "exports");
    await click(page, "link", "Weekly portfolios to reports");
    await click(page, "button", "Delete");
    const confirm = await find(page, "dialog", "Delete export");
    await click(confirm, "button", "Delete export");
    await find(page, "heading", "Data Exports");
    expect((await call("GET", `/api/v1/settings/exports/${id}`, { token: await adminToken() })).status).toBe(404);
  });
});
