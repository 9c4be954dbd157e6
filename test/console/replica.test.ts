import type { HTTPRequest, Page } from "puppeteer-core";
import { describe, expect, it } from "vitest";
import { adminToken, baseUrl, call } from "../http";
import {
  byRole,
  choose,
  click,
  expectAccessible,
  fill,
  find,
  intercept,
  openArea,
  screenshot,
  signIn,
  textOf,
  useBrowser,
  waitForText,
} from "./browser";

/**
 * The replica's settings API answered in the browser with a status the service under test cannot give
 * (its plan is Enterprise): 404 (no replica in this deployment) and 403 (another plan).
 */
async function answeredInBrowser(
  page: Page,
  answer: { status: number; body: unknown },
): Promise<{ stop: () => Promise<void> }> {
  const stop = await intercept(page, (request: HTTPRequest) => {
    if (!new URL(request.url()).pathname.startsWith("/api/v1/settings/replica")) return false;
    request
      .respond({ status: answer.status, contentType: "application/json", body: JSON.stringify(answer.body) })
      .catch(() => undefined);
    return true;
  });
  return { stop };
}

describe("console › Replica", () => {
  const session = useBrowser();

  it("says that the replica is not available when the service has none (its routes answer 404)", async () => {
    const { page } = session();
    await signIn(page);
    // Answered in the browser: the service under test has a replica.
    const { stop } = await answeredInBrowser(page, {
      status: 404,
      body: { error: { code: "NOT_FOUND", message: "No such resource", requestId: "r" } },
    });
    await openArea(page, "Replica");
    await find(page, "heading", "The replica is not available");
    await expectAccessible(page);
    await stop();
  });

  it("on another plan (403) shows the service's reason", async () => {
    const { page } = session();
    const { stop } = await answeredInBrowser(page, {
      status: 403,
      body: {
        error: { code: "FORBIDDEN", message: "The read-only SQL replica is an Enterprise feature.", requestId: "r" },
      },
    });
    await page.reload({ waitUntil: "networkidle0" });
    await find(page, "heading", "The replica is not available");
    await waitForText(page, "The read-only SQL replica is an Enterprise feature.");
    await stop();
  });

  it("against the service's replica: connection details, tables, logins with their limits; a new login's password once; limits changed; rotate; delete; the steps for Power BI, Excel and psql filled in", async () => {
    const { page } = session();
    // Still signed in from the first case (the tab's sessionStorage keeps the session), so the console
    // opens on its landing page, not the sign-in form; loaded afresh, without the answers faked above.
    await page.goto(`${baseUrl()}/console`, { waitUntil: "networkidle0" });
    await page.waitForSelector("nav");
    await openArea(page, "Replica");
    await find(page, "heading", "Connection");
    const main = await textOf(page);
    expect(main).toMatch(/Engine\s*PostgreSQL \(local runtime\)/);
    expect(main).toMatch(/Host\s*127\.0\.0\.1/);
    expect(main).toContain("analytics.prices");
    const port = /Port\s*(\d+)/.exec(main)?.[1] ?? "";
    expect(Number(port)).toBeGreaterThan(0);

    const name = `Risk dashboards ${Date.now().toString(36)}`;
    await click(page, "button", "New Login");
    const dialog = await find(page, "dialog", "New Login");
    await click(dialog, "button", "Save");
    await dialog.waitForSelector('input[aria-invalid="true"]');
    await fill(dialog, "Name", name);
    await fill(dialog, "Connection limit", "0");
    await click(dialog, "button", "Save");
    // The API's 422 beside the field it names.
    await dialog.waitForSelector('input[aria-invalid="true"]');
    expect(await textOf(page, "dialog")).toMatch(/Connection limit[\s\S]*1/);
    await fill(dialog, "Connection limit", "3");
    await fill(dialog, "Statement time limit (seconds)", "120");
    await click(dialog, "button", "Save");
    const created = await find(page, "dialog", "Login created");
    const password = await created.$eval(byRole("textbox", "Password"), (el) => (el as HTMLInputElement).value);
    expect(password).toMatch(/^Ro1-/);
    const shown = await textOf(page, "dialog");
    const username = /Username\s*(ro_\w+)/.exec(shown)?.[1] ?? "";
    expect(username).toMatch(/^ro_risk_dashboards_/);
    expect(shown).toContain(`host=127.0.0.1 port=${port} dbname=analytics user=${username}`);
    expect(shown).toContain("3 connections, 120 s per statement");
    await click(created, "button", "Done");
    await waitForText(page, name);
    expect(await textOf(page)).not.toContain(password);
    const row = async (): Promise<string> =>
      page.$$eval(
        "main tr",
        (rows, n) => rows.map((r) => (r as HTMLElement).innerText).find((t) => t.includes(n)) ?? "",
        name,
      );
    expect(await row()).toMatch(/\b3\s+120 s\b/);

    await click(page, "button", `Change limits of ${name}`);
    const limits = await find(page, "dialog", `Limits of ${name}`);
    await fill(limits, "Connection limit", "5");
    await fill(limits, "Statement time limit (seconds)", "300");
    await expectAccessible(page);
    await click(limits, "button", "Save limits");
    await waitForText(page, `Limits of ${name} saved: 5 connections, 300 s per statement.`);
    await page.waitForFunction(
      (n) =>
        [...document.querySelectorAll("main tr")].some(
          (r) => (r as HTMLElement).innerText.includes(n) && /\b5\s+300 s\b/.test((r as HTMLElement).innerText),
        ),
      {},
      name,
    );
    const listed = await call("GET", "/api/v1/settings/replica/logins?pageSize=200", { token: await adminToken() });
    expect((listed.body.data as { name: string }[]).find((l) => l.name === name)).toMatchObject({
      connectionLimit: 5,
      statementTimeoutSeconds: 300,
    });

    // How to connect, with this deployment's values and the chosen login.
    await find(page, "heading", "Connect a BI tool");
    if ((await page.$(byRole("combobox", "Login"))) !== null) await choose(page, "Login", `${name} (${username})`);
    const steps = await textOf(page);
    expect(steps).toContain("Power BI Desktop");
    expect(steps).toContain(`Server 127.0.0.1:${port}, Database analytics`);
    expect(steps).toContain(`User name ${username}`);
    expect(steps).toContain("Excel");
    expect(steps).toContain(`psql "host=127.0.0.1 port=${port} dbname=analytics user=${username}"`);
    await expectAccessible(page);
    await screenshot(page, "replica");
    await screenshot(page, "replica-connect", "main section:last-of-type");

    await click(page, "button", `Rotate password of ${name}`);
    await click(await find(page, "dialog", "Rotate login password"), "button", "Issue a new password");
    const rotated = await find(page, "dialog", "New password");
    const fresh = await rotated.$eval(byRole("textbox", "Password"), (el) => (el as HTMLInputElement).value);
    expect(fresh).toMatch(/^Ro1-/);
    expect(fresh).not.toBe(password);
    await click(rotated, "button", "Done");

    await click(page, "button", `Delete ${name}`);
    await click(await find(page, "dialog", "Delete login"), "button", "Delete login");
    await waitForText(page, `Login ${name} deleted.`);
    await page.waitForFunction(
      (n) => ![...document.querySelectorAll("main tr")].some((r) => (r as HTMLElement).innerText.includes(n)),
      {},
      name,
    );
  });

  it("in Azure the steps are Azure SQL's: Power BI's and Excel's Azure SQL database connector, and sqlcmd (psql does not speak its protocol)", async () => {
    const { page } = session();
    const token = await adminToken();
    const made = await call("POST", "/api/v1/settings/replica/logins", { token, body: { name: "Azure steps" } });
    expect(made.status, made.text).toBe(201);
    const login = made.body.data as { id: string; username: string };
    const stop = await intercept(page, (request) => {
      if (new URL(request.url()).pathname !== "/api/v1/settings/replica") return false;
      void request.respond({
        status: 200,
        contentType: "application/json",
        body: JSON.stringify({
          data: {
            engine: "sqlserver",
            host: "ids-contoso.database.windows.net",
            port: 1433,
            database: "analytics",
            schema: "analytics",
            authentication: ["entra", "sql-login"],
            status: "current",
            lagSeconds: 0,
            lastProjectedAt: "2026-11-25T09:59:58.000Z",
            tables: [{ name: "portfolios", rows: 1250 }],
            documents: { stored: 1250, projected: 1250 },
          },
        }),
      });
      return true;
    });
    await page.reload({ waitUntil: "networkidle0" });
    await find(page, "heading", "Connect a BI tool");
    if ((await page.$(byRole("combobox", "Login"))) !== null)
      await choose(page, "Login", `Azure steps (${login.username})`);
    const text = await textOf(page);
    expect(text).toContain("Get data › Azure › Azure SQL database");
    expect(text).toContain("Server ids-contoso.database.windows.net, Database analytics");
    expect(text).toContain("From Azure › From Azure SQL Database");
    expect(text).toContain(`User name ${login.username}`);
    expect(text).toContain(
      `sqlcmd --server tcp:ids-contoso.database.windows.net,1433 --database-name analytics --user-name ${login.username}`,
    );
    expect(text).not.toContain('psql "');
    await expectAccessible(page);
    await stop();
    expect((await call("DELETE", `/api/v1/settings/replica/logins/${login.id}`, { token })).status).toBe(204);
  });
});
