import { describe, expect, it } from "vitest";
import {
  byRole,
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
import { call } from "../http";

const XSS = `<img src=x onerror="window.__xss=1">BI tool`;

async function token(clientId: string, clientSecret: string): Promise<{ status: number; scope?: string }> {
  const reply = await call("POST", "/auth/token", {
    body: new URLSearchParams({
      grant_type: "client_credentials",
      client_id: clientId,
      client_secret: clientSecret,
    }).toString(),
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
  });
  return { status: reply.status, scope: reply.body?.scope };
}

describe("console › API Clients: create one and read its secret once, rotate it, disable it; names are text", () => {
  const session = useBrowser();
  let clientId = "";
  let secret = "";

  it("creates a client: its id and secret are shown once, with a copy button, and the secret gets a token", async () => {
    const { page } = session();
    await signIn(page);
    await openArea(page, "API Clients");
    await click(page, "button", "New API Client");
    const dialog = await find(page, "dialog", "New API Client");
    await fill(dialog, "Name", XSS);
    await expectAccessible(page);
    await click(dialog, "button", "Save");
    const created = await find(page, "dialog", "API client created");
    secret = await created.$eval(byRole("textbox", "Client secret"), (el) => (el as HTMLInputElement).value);
    clientId = /Client ID\s*(\S+)/.exec(await textOf(page, "dialog"))?.[1] ?? "";
    expect(clientId).not.toBe("");
    // The Copy button puts the secret on the clipboard (allowed here as a person's browser would).
    await page
      .browserContext()
      .overridePermissions(new URL(page.url()).origin, [
        "clipboard-read",
        "clipboard-write",
        "clipboard-sanitized-write",
      ]);
    await click(created, "button", "Copy");
    await waitForText(page, "Client secret copied to the clipboard.", "dialog");
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    expect(await token(clientId, secret)).toEqual({ status: 200, scope: "api.read" });
    await screenshot(page, "api-client-secret");
    await click(created, "button", "Done");
    await page.waitForFunction(() => document.querySelector("dialog") === null);
    // Done leads to the client's page.
    await find(page, "heading", XSS);
  });

  it("shows the client: its name, however it looks, is text; nothing runs; the secret is not on the page", async () => {
    const { page, problems } = session();
    await waitForText(page, clientId);
    const main = await textOf(page);
    expect(main).toContain(XSS);
    expect(main).not.toContain(secret);
    expect(await page.$$eval("main img", (imgs) => imgs.length)).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
    expect(JSON.stringify(await page.evaluate(() => ({ ...sessionStorage, ...localStorage })))).not.toContain(secret);
    expect(await page.title()).toBe("API Clients · System Settings");
    await expectAccessible(page);
    await screenshot(page, "api-client");
    expect(problems).toEqual([]);
  });

  it("edits scopes and tier, rotates the secret (the old one stops working) and disables the client", async () => {
    const { page } = session();
    await click(page, "button", "Edit");
    const edit = await find(page, "dialog", "Edit API client");
    await click(edit, "checkbox", "api.write: imports, portfolio changes, resolving exceptions");
    await (await find(edit, "combobox", "Tier")).select("premium");
    await click(edit, "button", "Save");
    await waitForText(page, "API client saved.");
    await waitForText(page, "Premium (300 a minute");
    expect((await token(clientId, secret)).scope).toBe("api.read api.write");

    await click(page, "button", "Rotate secret");
    await click(await find(page, "dialog", "Rotate client secret"), "button", "Issue a new secret");
    const shown = await find(page, "dialog", "New client secret");
    const rotated = await shown.$eval(byRole("textbox", "Client secret"), (el) => (el as HTMLInputElement).value);
    expect(rotated).not.toBe(secret);
    expect((await token(clientId, secret)).status).toBe(401);
    expect((await token(clientId, rotated)).status).toBe(200);
    await click(shown, "button", "Done");

    await click(page, "button", "Disable");
    await click(await find(page, "dialog", "Disable API client"), "button", "Disable client");
    await waitForText(page, "Client disabled: its tokens no longer work.");
    expect((await token(clientId, rotated)).status).toBe(401);
    await find(page, "button", "Enable");
  });

  it("lists the clients, each name a link to its page", async () => {
    const { page } = session();
    await click(page, "link", "All API clients");
    await find(page, "heading", "API Clients");
    await page.waitForSelector("main table");
    expect(await page.$$eval("main tbody tr", (trs) => trs.length)).toBeGreaterThanOrEqual(1);
    await expectAccessible(page);
    await screenshot(page, "api-clients");
  });
});
