import type { HTTPRequest, Page } from "puppeteer-core";
import { describe, expect, it } from "vitest";
import { byRole, click, fill, find, intercept, openArea, signIn, textOf, useBrowser } from "./browser";
import { BOOTSTRAP } from "../runtime";

/** The next POST to the API clients is answered by `fail` instead of the service; the function returned ends this. */
function failNextCreate(page: Page, fail: (request: HTTPRequest) => Promise<unknown>): Promise<() => Promise<void>> {
  let used = false;
  return intercept(page, (request) => {
    if (used || request.method() !== "POST" || !request.url().endsWith("/api/v1/settings/api-clients")) return false;
    used = true;
    void fail(request);
    return true;
  });
}

describe("console: when things go wrong, what was typed is kept; the keyboard does everything", () => {
  const session = useBrowser();

  it("works from the keyboard alone: open, fill and submit a form, close it with Escape, focus back on its button", async () => {
    const { page } = session();
    await signIn(page);
    await openArea(page, "API Clients");
    await (await find(page, "button", "New API Client")).focus();
    await page.keyboard.press("Enter");
    await find(page, "dialog", "New API Client");
    // Focus is in the first field; Tab moves through the scopes to the tier; Enter in a field submits.
    expect(await page.evaluate(() => document.activeElement?.id)).toBe(
      await page.$eval(byRole("textbox", "Name"), (el) => el.id),
    );
    await page.keyboard.type("Keyboard client");
    await page.keyboard.press("Tab");
    await page.keyboard.press("Tab");
    await page.keyboard.press("Space");
    expect(
      await page.$eval(
        byRole("checkbox", "api.write: imports, portfolio changes, resolving exceptions"),
        (el) => (el as HTMLInputElement).checked,
      ),
    ).toBe(true);
    await (await find(page, "textbox", "Name")).focus();
    await page.keyboard.press("Enter");
    await find(page, "dialog", "API client created");
    // Escape is Done here: on to the new client's page, its heading focused.
    await page.keyboard.press("Escape");
    await page.waitForFunction(
      () => document.activeElement?.tagName === "H1" && document.activeElement.textContent === "Keyboard client",
    );
    expect(await textOf(page)).toContain("api.read, api.write");
    // Escape closes a form dialog, and focus goes back to the button that opened it.
    await (await find(page, "button", "Edit")).focus();
    await page.keyboard.press("Enter");
    await find(page, "dialog", "Edit API client");
    await page.keyboard.press("Escape");
    await page.waitForFunction(() => document.querySelector("dialog") === null);
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Edit");
    await click(page, "link", "All API clients");
    await find(page, "heading", "API Clients");
  });

  it("a network failure and a 5xx say so, keep what was typed, and the next try succeeds", async () => {
    const { page } = session();
    await click(page, "button", "New API Client");
    const dialog = await find(page, "dialog", "New API Client");
    await fill(dialog, "Name", "Flaky network client");

    let stop = await failNextCreate(page, (request) => request.abort("connectionrefused"));
    await click(dialog, "button", "Save");
    await page.waitForFunction(() => document.querySelector("dialog .form-alert:not(.empty)") !== null);
    expect(await textOf(page, "dialog .form-alert")).toBe(
      "The service could not be reached. Check your connection; nothing you typed is lost.",
    );
    expect(await dialog.$eval(byRole("textbox", "Name"), (el) => (el as HTMLInputElement).value)).toBe(
      "Flaky network client",
    );
    await stop();

    stop = await failNextCreate(page, (request) =>
      request.respond({
        status: 500,
        contentType: "application/json",
        body: JSON.stringify({
          error: { code: "INTERNAL_ERROR", message: "An unexpected error occurred", requestId: "req-500" },
        }),
      }),
    );
    await click(dialog, "button", "Save");
    await page.waitForFunction(
      () => document.querySelector("dialog .form-alert")?.textContent?.includes("500") === true,
    );
    expect(await textOf(page, "dialog .form-alert")).toBe(
      "The service failed (500 INTERNAL_ERROR). Nothing you typed is lost; try again. Request id: req-500.",
    );
    expect(await dialog.$eval(byRole("textbox", "Name"), (el) => (el as HTMLInputElement).value)).toBe(
      "Flaky network client",
    );
    await stop();

    await click(dialog, "button", "Save");
    await find(page, "dialog", "API client created");
    await page.keyboard.press("Escape");
    await find(page, "heading", "Flaky network client");
    await click(page, "link", "All API clients");
    await find(page, "heading", "API Clients");
  });

  it("a token the service refuses (401) mid-form asks to sign in again, over the form, which keeps what was typed", async () => {
    const { page } = session();
    await click(page, "button", "New API Client");
    const dialog = await find(page, "dialog", "New API Client");
    await fill(dialog, "Name", "After a new sign-in");
    const stop = await failNextCreate(page, (request) =>
      request.respond({
        status: 401,
        contentType: "application/json",
        body: JSON.stringify({
          error: { code: "UNAUTHORIZED", message: "The access token has expired", requestId: "r" },
        }),
      }),
    );
    await click(dialog, "button", "Save");
    const again = await find(page, "dialog", "Sign in again");
    await stop();
    await fill(again, "Client secret", BOOTSTRAP.secret);
    await click(again, "button", "Sign in");
    await page.waitForFunction(() => document.querySelectorAll("dialog").length === 1);
    expect(await dialog.$eval(byRole("textbox", "Name"), (el) => (el as HTMLInputElement).value)).toBe(
      "After a new sign-in",
    );
    await click(dialog, "button", "Save");
    await find(page, "dialog", "API client created");
  });

  it("says what to do in people's words, never the validation library's text", async () => {
    const { page } = session();
    // A fresh page (the previous test leaves a dialog open); the session is kept in the tab.
    await page.reload({ waitUntil: "networkidle0" });
    await openArea(page, "Webhooks");
    await click(page, "button", "Add Webhook");
    const dialog = await find(page, "dialog", "Add Webhook");
    await click(dialog, "button", "Save");
    await dialog.waitForSelector('[aria-invalid="true"]');
    const said = await textOf(page, "dialog");
    expect(said).toContain("Choose at least one event");
    expect(said).not.toMatch(/Too small|Too big|Invalid input|Invalid option|expected (string|array|number)/);
  });
});
