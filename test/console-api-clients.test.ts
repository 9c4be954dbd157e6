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
} from "./console-browser";
import { call } from "./http";

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
    await click(created, "button", "Copy");
    await page.waitForFunction(() => document.querySelector("dialog .copied")?.textContent !== "");
    expect(await token(clientId, secret)).toEqual({ status: 200, scope: "api.read" });
    await screenshot(page, "api-client-secret");
    await click(created, "button", "Done");
    await page.waitForFunction(() => document.querySelector("dialog") === null);
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("New API Client");
  });

  it("lists the client: its name, however it looks, is text; nothing runs; the secret is not on the page", async () => {
    const { page, problems } = session();
    await waitForText(page, clientId);
    const main = await textOf(page);
    expect(main).toContain(XSS);
    expect(main).not.toContain(secret);
    expect(await page.$$eval("main img", (imgs) => imgs.length)).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
    expect(JSON.stringify(await page.evaluate(() => ({ ...sessionStorage, ...localStorage })))).not.toContain(secret);
    await expectAccessible(page);
    await screenshot(page, "api-clients");
    expect(problems).toEqual([]);
  });

  it("edits scopes and tier, rotates the secret (the old one stops working) and disables the client", async () => {
    const { page } = session();
    await click(page, "button", `Edit ${XSS}`);
    const edit = await find(page, "dialog", "Edit API client");
    await click(edit, "checkbox", "api.write: imports, portfolio changes, resolving exceptions");
    await (await find(edit, "combobox", "Tier")).select("premium");
    await click(edit, "button", "Save");
    await page.waitForFunction(
      (id) =>
        Array.from(document.querySelectorAll("main tr")).some(
          (tr) => tr.textContent?.includes(id) && tr.textContent.includes("premium"),
        ),
      {},
      clientId,
    );
    expect((await token(clientId, secret)).scope).toBe("api.read api.write");

    await click(page, "button", `Rotate secret of ${XSS}`);
    await click(await find(page, "dialog", "Rotate client secret"), "button", "Issue a new secret");
    const shown = await find(page, "dialog", "New client secret");
    const rotated = await shown.$eval(byRole("textbox", "Client secret"), (el) => (el as HTMLInputElement).value);
    expect(rotated).not.toBe(secret);
    expect((await token(clientId, secret)).status).toBe(401);
    expect((await token(clientId, rotated)).status).toBe(200);
    await click(shown, "button", "Done");

    await click(page, "button", `Disable ${XSS}`);
    await click(await find(page, "dialog", "Disable API client"), "button", "Disable client");
    await waitForText(page, `${XSS} disabled.`);
    expect((await token(clientId, rotated)).status).toBe(401);
    await find(page, "button", `Enable ${XSS}`);
  });
});
