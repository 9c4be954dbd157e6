import type { HTTPRequest, Page } from "puppeteer-core";
import { describe, expect, it } from "vitest";
import {
  byRole,
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
 * The replica's settings API as API.md pins it, answered in the browser: the replica is built in
 * another branch, so that this page can be checked against its contract before the two meet.
 * Replace with the real API once it is here.
 */
async function pinnedReplicaApi(
  page: Page,
  answer: { status: number; body?: unknown } | undefined,
): Promise<{ logins: Record<string, unknown>[]; stop: () => Promise<void> }> {
  const state = {
    logins: [
      { id: "rl_1", name: "Finance BI", username: "bi_finance", createdAt: "2026-11-20T08:00:00.000Z" },
    ] as Record<string, unknown>[],
  };
  let serial = 1;
  const json = (request: HTTPRequest, status: number, body?: unknown): true => {
    request
      .respond({ status, contentType: "application/json", body: body === undefined ? "" : JSON.stringify(body) })
      .catch(() => undefined);
    return true;
  };
  const stop = await intercept(page, (request) => {
    const url = new URL(request.url());
    if (!url.pathname.startsWith("/api/v1/settings/replica")) return false;
    const method = request.method();
    if (answer !== undefined) return json(request, answer.status, answer.body);
    if (url.pathname === "/api/v1/settings/replica" && method === "GET") {
      return json(request, 200, {
        data: {
          engine: "sqlserver",
          host: "ids-contoso.database.windows.net",
          port: 1433,
          database: "analytics",
          schema: "analytics",
          authentication: ["entra", "sql-login"],
          status: "healthy",
          lagSeconds: 2,
          lastProjectedAt: "2026-11-25T09:59:58.000Z",
          tables: [
            { name: "portfolios", rows: 1250 },
            { name: "holdings", rows: 918_442 },
            { name: "transactions", rows: 2_301_118 },
          ],
        },
      });
    }
    if (url.pathname === "/api/v1/settings/replica/logins" && method === "GET")
      return json(request, 200, {
        data: state.logins,
        pagination: { page: 1, pageSize: 200, totalItems: state.logins.length, totalPages: 1 },
      });
    if (url.pathname === "/api/v1/settings/replica/logins" && method === "POST") {
      const { name } = JSON.parse(request.postData() ?? "{}") as { name: string };
      if (name.trim() === "")
        return json(request, 422, {
          error: {
            code: "VALIDATION_ERROR",
            message: "The request body failed validation",
            details: [{ field: "name", message: "is required" }],
            requestId: "r1",
          },
        });
      const login = { id: `rl_${++serial}`, name, username: `bi_${serial}`, createdAt: "2026-11-25T10:00:00.000Z" };
      state.logins.push(login);
      return json(request, 201, { data: { ...login, password: `first-password-${serial}` } });
    }
    const rotate = /^\/api\/v1\/settings\/replica\/logins\/([^/]+)\/rotate-password$/.exec(url.pathname);
    if (rotate !== null && method === "POST")
      return json(request, 200, {
        data: { ...state.logins.find((l) => l.id === rotate[1]), password: "rotated-password" },
      });
    const one = /^\/api\/v1\/settings\/replica\/logins\/([^/]+)$/.exec(url.pathname);
    if (one !== null && method === "DELETE") {
      state.logins = state.logins.filter((l) => l.id !== one[1]);
      return json(request, 204);
    }
    return json(request, 404, { error: { code: "NOT_FOUND", message: "no such route", requestId: "r2" } });
  });
  return Object.assign(state, { stop });
}

describe("console › Replica", () => {
  const session = useBrowser();

  it("says that the replica is not available when the service has none (its routes answer 404)", async () => {
    const { page } = session();
    await signIn(page);
    // Answered in the browser too, so that this holds whether or not this service has the replica's API yet.
    const { stop } = await pinnedReplicaApi(page, {
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
    const { stop } = await pinnedReplicaApi(page, {
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

  it("against the pinned contract: connection details, tables, logins; a new login's password once; rotate; delete", async () => {
    const { page } = session();
    const state = await pinnedReplicaApi(page, undefined);
    await page.reload({ waitUntil: "networkidle0" });
    await find(page, "heading", "Connection");
    const main = await textOf(page);
    expect(main).toMatch(/Host\s*ids-contoso\.database\.windows\.net/);
    expect(main).toMatch(/Port\s*1433/);
    expect(main).toMatch(/Authentication\s*Microsoft Entra identity, SQL login/);
    expect(main).toContain("analytics.transactions");
    expect(main).toContain("2,301,118");
    expect(main).toContain("bi_finance");
    await expectAccessible(page);
    await screenshot(page, "replica");

    await click(page, "button", "New Login");
    const dialog = await find(page, "dialog", "New Login");
    await click(dialog, "button", "Save");
    await dialog.waitForSelector('input[aria-invalid="true"]');
    await fill(dialog, "Name", "Risk dashboards");
    await click(dialog, "button", "Save");
    const created = await find(page, "dialog", "Login created");
    expect(await created.$eval(byRole("textbox", "Password"), (el) => (el as HTMLInputElement).value)).toBe(
      "first-password-2",
    );
    expect(await textOf(page, "dialog")).toContain(
      "Server=tcp:ids-contoso.database.windows.net,1433;Database=analytics;User ID=bi_2",
    );
    await click(created, "button", "Done");
    await waitForText(page, "Risk dashboards");
    expect(await textOf(page)).not.toContain("first-password-2");

    await click(page, "button", "Rotate password of Risk dashboards");
    await click(await find(page, "dialog", "Rotate login password"), "button", "Issue a new password");
    const rotated = await find(page, "dialog", "New password");
    expect(await rotated.$eval(byRole("textbox", "Password"), (el) => (el as HTMLInputElement).value)).toBe(
      "rotated-password",
    );
    await click(rotated, "button", "Done");

    await click(page, "button", "Delete Finance BI");
    await click(await find(page, "dialog", "Delete login"), "button", "Delete login");
    await waitForText(page, "Login Finance BI deleted.");
    expect(state.logins.map((l) => l.name)).toEqual(["Risk dashboards"]);
    await state.stop();
  });
});
