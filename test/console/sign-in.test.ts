import { beforeAll, describe, expect, it } from "vitest";
import { byRole, click, expectAccessible, fill, find, screenshot, signIn, textOf, useBrowser } from "./browser";
import { baseUrl, call } from "../http";
import { BOOTSTRAP } from "../runtime";

const AREAS = [
  "Webhooks",
  "Data Exports",
  "Feeds",
  "Blob Sources",
  "API Clients",
  "Replica",
  "Jobs",
  "Exceptions",
  "Audit log",
];
const SESSION_KEY = "ids-console-session";

describe("console: signing in and out", () => {
  const session = useBrowser();
  let reader: { clientId: string; clientSecret: string };

  beforeAll(async () => {
    const token = await call("POST", "/auth/token", {
      body: `grant_type=client_credentials&client_id=${BOOTSTRAP.id}&client_secret=${BOOTSTRAP.secret}`,
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
    });
    const created = await call("POST", "/api/v1/settings/api-clients", {
      token: token.body.access_token,
      body: { name: "console reader", scopes: ["api.read"] },
    });
    reader = created.body.data;
  });

  it("refuses a wrong secret in an alert and stores nothing", async () => {
    const { page } = session();
    await page.goto(`${baseUrl()}/console`, { waitUntil: "networkidle0" });
    await expectAccessible(page);
    await screenshot(page, "sign-in");
    await fill(page, "Client ID", BOOTSTRAP.id);
    await fill(page, "Client secret", "not-the-secret");
    await click(page, "button", "Sign in");
    await page.waitForFunction(
      () => document.querySelector<HTMLElement>('[role="alert"]')?.innerText.includes("wrong") === true,
    );
    expect(await textOf(page, '[role="alert"]')).toBe("The client ID or secret is wrong, or the client is disabled.");
    // Focus moves to the refusal, so that a screen reader reads it and the person can go back to the fields.
    expect(await page.evaluate(() => document.activeElement?.getAttribute("role"))).toBe("alert");
    expect(await page.evaluate((key) => sessionStorage.getItem(key), SESSION_KEY)).toBeNull();
    expect(await page.$("nav")).toBeNull();
  });

  it("refuses a client without api.admin, saying why", async () => {
    const { page } = session();
    await fill(page, "Client ID", reader.clientId);
    await fill(page, "Client secret", reader.clientSecret);
    await click(page, "button", "Sign in");
    await page.waitForFunction(
      () => document.querySelector<HTMLElement>('[role="alert"]')?.innerText.includes("api.admin") === true,
    );
    expect(await page.evaluate((key) => sessionStorage.getItem(key), SESSION_KEY)).toBeNull();
  });

  it("signs in an administrator: the navigation holds every area; the token is in this tab only, never in a URL or localStorage", async () => {
    const { page, problems } = session();
    await signIn(page);
    const nav = await page.waitForSelector("nav");
    expect(nav).not.toBeNull();
    for (const area of AREAS) expect(await nav?.$(byRole("link", area)), area).not.toBeNull();
    const links = await page.$$eval("nav a", (as) => as.map((a) => a.textContent));
    expect(links).toEqual(AREAS);
    const stored = await page.evaluate(
      (key) => ({ session: sessionStorage.getItem(key), local: { ...localStorage }, url: location.href }),
      SESSION_KEY,
    );
    const token = (JSON.parse(stored.session ?? "{}") as { accessToken?: string }).accessToken ?? "";
    expect(token.split(".")).toHaveLength(3);
    expect(stored.local).toEqual({});
    expect(stored.url).not.toContain(token);
    expect(stored.url).not.toContain(BOOTSTRAP.secret);
    expect(JSON.stringify(stored)).not.toContain(BOOTSTRAP.secret);
    // The heading of the first page has focus after signing in.
    expect(await page.evaluate(() => document.activeElement?.tagName)).toBe("H1");
    await expectAccessible(page);
    expect(problems).toEqual([]);
  });

  it("moves between areas from the keyboard, focusing each page's heading", async () => {
    const { page } = session();
    const link = await find(page, "link", "Data Exports");
    await link.focus();
    await page.keyboard.press("Enter");
    await page.waitForFunction(
      () => document.activeElement?.tagName === "H1" && document.activeElement.textContent === "Data Exports",
    );
    expect(await page.evaluate(() => location.hash)).toBe("#/exports");
    expect(await page.$eval(byRole("link", "Data Exports"), (a) => a.getAttribute("aria-current"))).toBe("page");
    expect(await page.title()).toBe("Data Exports · System Settings");
  });

  it("asks to sign in again when the token expires, over the page as it was", async () => {
    const { page } = session();
    // The token ends in a second: the console forgets it then and asks again, without waiting for a click.
    await page.evaluate((key) => {
      const stored = JSON.parse(sessionStorage.getItem(key) ?? "{}") as { expiresAt: number };
      sessionStorage.setItem(key, JSON.stringify({ ...stored, expiresAt: Date.now() + 1000 }));
    }, SESSION_KEY);
    await page.reload({ waitUntil: "networkidle0" });
    const dialog = await find(page, "dialog", "Sign in again");
    expect(await page.evaluate((key) => sessionStorage.getItem(key), SESSION_KEY)).toBeNull();
    // The page stays behind the dialog (inert while it is open), as it was.
    expect(await page.$eval("main h1", (h) => h.textContent)).toBe("Data Exports");
    expect(await dialog.$eval(byRole("textbox", "Client ID"), (el) => (el as HTMLInputElement).value)).toBe(
      BOOTSTRAP.id,
    );
    await fill(dialog, "Client secret", BOOTSTRAP.secret);
    await click(dialog, "button", "Sign in");
    await page.waitForFunction(() => document.querySelector("dialog") === null);
    expect(await page.evaluate((key) => sessionStorage.getItem(key), SESSION_KEY)).not.toBeNull();
  });

  it("signs out: the token is forgotten and the sign-in form is back", async () => {
    const { page } = session();
    await click(page, "button", "Sign out");
    await find(page, "button", "Sign in");
    expect(await page.evaluate((key) => sessionStorage.getItem(key), SESSION_KEY)).toBeNull();
    await page.reload({ waitUntil: "networkidle0" });
    await find(page, "textbox", "Client ID");
    expect(await page.$("nav")).toBeNull();
  });
});
